#include "workshop/schedulerbar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lockscope
{

SchedulerBar::SchedulerBar(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>You are the scheduler:</b> who acts next?"), this));
    auto *buttons = new QWidget(this);
    m_buttons = new QHBoxLayout(buttons);
    m_buttons->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buttons);
}

void SchedulerBar::setActors(const QStringList &actors)
{
    while (QLayoutItem *item = m_buttons->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const QString &actor : actors) {
        auto *b = new QPushButton(actor.isEmpty() ? tr("⏱ time passes") : actor, this);
        b->setToolTip(actor.isEmpty() ? tr("Run the next step that is not a client's (a pause, the doctor)")
                                      : tr("Let %1 do its next step").arg(actor));
        connect(b, &QPushButton::clicked, this, [this, actor] { emit chosen(actor); });
        m_buttons->addWidget(b);
    }
    m_buttons->addStretch(1);
}

} // namespace lockscope
