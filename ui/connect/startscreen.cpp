#include "connect/startscreen.h"

#include "connect/connectionprofilestore.h"

#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{
QIcon tagIcon(const QColor &color)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    if (color.isValid()) {
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawEllipse(QRectF(1, 1, 12, 12));
    }
    return QIcon(pm);
}

QPushButton *bigButton(const QString &text, const QString &explanation, QWidget *parent)
{
    auto *b = new QPushButton(text, parent);
    b->setToolTip(explanation);
    b->setAccessibleName(text.section(QLatin1Char('\n'), 0, 0).remove(QLatin1Char('&')));
    b->setAccessibleDescription(explanation);
    b->setMinimumHeight(56);
    b->setMinimumWidth(220);
    return b;
}
} // namespace

StartScreen::StartScreen(ConnectionProfileStore *store, QWidget *parent) : QWidget(parent), m_store(store)
{
    setWindowTitle(tr("LockScope"));
    setObjectName(QStringLiteral("startScreen"));
    auto *title =
        new QLabel(tr("<h2>LockScope</h2>Which locks are held in Redis, by whom, for how long, and who waits."), this);
    title->setWordWrap(true);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("startError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { border-left: 5px solid #c0392b; padding: 6px; }"));
    m_error->hide();

    auto *listTitle = new QLabel(tr("<b>Saved and recent connections</b>"), this);
    m_connections = new QListWidget(this);
    m_connections->setAccessibleName(tr("Saved and recent connections"));
    m_connections->setUniformItemSizes(true);
    listTitle->setBuddy(m_connections);
    connect(m_connections, &QListWidget::itemActivated, this, [this](QListWidgetItem *) { openCurrent(); });
    m_open = new QPushButton(tr("&Open"), this);
    m_open->setToolTip(tr("Connect to the selected connection (Enter or double-click)"));
    m_open->setAccessibleName(tr("Open the selected connection"));
    connect(m_open, &QPushButton::clicked, this, &StartScreen::openCurrent);
    connect(m_connections, &QListWidget::currentRowChanged, this, [this](int row) { m_open->setEnabled(row >= 0); });

    auto *connectButton =
        bigButton(tr("&Connect…\nA Redis by URL, TLS, user"),
                  tr("Open the Connect dialog: URL, TLS files, ACL user and password, saved connections"), this);
    auto *demo = bigButton(tr("Try the &demo\nA private Redis with simulated clients"),
                           tr("Starts a private redis-server on a free loopback port with simulated Redisson clients: "
                              "nothing touches your servers"),
                           this);
    auto *recording =
        bigButton(tr("Open a &recording…\nReplay what a dashboard saw"),
                  tr("Replay a file written with --record or lockscope-cli watch --record (writes disabled)"), this);
    auto *workshop = bigButton(tr("&Workshop\nStage reentrancy, fair queues, the watchdog"),
                               tr("Teaching mode: staged scenarios on a private redis-server, step by step"), this);
    connect(connectButton, &QPushButton::clicked, this, &StartScreen::connectDialogRequested);
    connect(demo, &QPushButton::clicked, this, &StartScreen::demoRequested);
    connect(recording, &QPushButton::clicked, this, &StartScreen::chooseRecording);
    connect(workshop, &QPushButton::clicked, this, &StartScreen::workshopRequested);

    auto *left = new QVBoxLayout;
    left->addWidget(listTitle);
    left->addWidget(m_connections, 1);
    auto *openRow = new QHBoxLayout;
    openRow->addStretch(1);
    openRow->addWidget(m_open);
    left->addLayout(openRow);
    auto *right = new QVBoxLayout;
    for (QPushButton *b : {connectButton, demo, recording, workshop})
        right->addWidget(b);
    right->addStretch(1);
    auto *columns = new QHBoxLayout;
    columns->addLayout(left, 3);
    columns->addSpacing(16);
    columns->addLayout(right, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 18, 24, 18);
    layout->addWidget(title);
    layout->addWidget(m_error);
    layout->addLayout(columns, 1);
    setTabOrder(m_connections, m_open);
    setTabOrder(m_open, connectButton);
    setTabOrder(connectButton, demo);
    setTabOrder(demo, recording);
    setTabOrder(recording, workshop);
    resize(820, 480);
    reload();
}

void StartScreen::reload()
{
    m_connections->clear();
    m_listed.clear();
    if (m_store) {
        for (const ConnectionProfile &p : m_store->profiles()) {
            auto *item = new QListWidgetItem(
                tagIcon(p.color), tr("%1 — %2%3").arg(p.name, p.url, p.readOnly ? tr(" (read-only)") : QString()),
                m_connections);
            item->setToolTip(tr("Saved connection: %1").arg(p.url));
            m_listed << p;
        }
        for (const ConnectionProfile &p : m_store->recent()) {
            auto *item = new QListWidgetItem(tagIcon(p.color), tr("%1 (recent)").arg(p.url), m_connections);
            item->setToolTip(tr("Recently opened"));
            m_listed << p;
        }
    }
    if (m_listed.isEmpty()) {
        auto *none = new QListWidgetItem(tr("No saved connections yet: Connect… saves them."), m_connections);
        none->setFlags(Qt::NoItemFlags);
    }
    m_connections->setCurrentRow(m_listed.isEmpty() ? -1 : 0);
    m_open->setEnabled(!m_listed.isEmpty());
}

void StartScreen::showError(const QString &message)
{
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
}

QString StartScreen::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

QList<ConnectionProfile> StartScreen::listedConnections() const
{
    return m_listed;
}

void StartScreen::openCurrent()
{
    const int row = m_connections->currentRow();
    if (row >= 0 && row < m_listed.size())
        emit connectionChosen(m_listed.at(row));
}

void StartScreen::chooseRecording()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a recording"), QString(), tr("LockScope recordings (*.jsonl *.jsonl.gz *.gz);;All files (*)"));
    if (!path.isEmpty())
        emit recordingChosen(path);
}

} // namespace lockscope
