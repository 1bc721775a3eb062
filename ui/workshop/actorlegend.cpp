#include "workshop/actorlegend.h"

namespace lockscope
{

ActorLegend::ActorLegend(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("workshopLegend"));
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
}

void ActorLegend::setActors(const QVector<Scenario::Actor> &actors, const QHash<QString, QString> &ids)
{
    QStringList parts;
    for (const Scenario::Actor &a : actors) {
        const QString id = ids.key(a.name);
        parts << tr("<b>%1</b> = client %2, thread %3")
                     .arg(a.name.toHtmlEscaped(),
                          id.isEmpty() ? tr("(a fresh id at the first step)") : id.left(8) + QStringLiteral("…"))
                     .arg(a.threadId);
    }
    setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
    QStringList tip;
    for (auto it = ids.cbegin(); it != ids.cend(); ++it)
        tip << QStringLiteral("%1 = %2").arg(it.value(), it.key());
    tip.sort();
    setToolTip(tip.join(QLatin1Char('\n')));
}

} // namespace lockscope
