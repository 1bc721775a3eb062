#include "locks/redlockdialog.h"

#include "redlock/redlocksession.h"
#include "text/durationtext.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{
enum Column { ServerCol, NameCol, StateCol, HolderCol, HoldCountCol, TtlCol, ColumnCount };
}

RedLockDialog::RedLockDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("RedLock / MultiLock view"));
    resize(980, 420);
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_servers = new QLineEdit(this);
    m_servers->setPlaceholderText(tr("redis://10.0.0.1:6379,redis://10.0.0.2:6379,redis://10.0.0.3:6379"));
    m_servers->setToolTip(tr("The independent Redis servers of the RedLock, as comma-separated URLs (each with "
                             "its own user, password and TLS if needed)"));
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("lock name, e.g. orders:42"));
    m_name->setToolTip(tr("The component lock's name on every server (a Redis hash in Redisson's lock layout)"));
    form->addRow(tr("&Servers:"), m_servers);
    form->addRow(tr("&Lock name:"), m_name);
    layout->addLayout(form);
    m_watch = new QPushButton(tr("&Watch"), this);
    m_watch->setDefault(true);
    m_watch->setToolTip(tr("Read the lock on every server once a second (read-only)"));
    layout->addWidget(m_watch, 0, Qt::AlignLeft);
    m_verdict = new QLabel(tr("Give the servers and the lock name, then Watch."), this);
    m_verdict->setTextFormat(Qt::RichText);
    m_verdict->setWordWrap(true);
    m_verdict->setToolTip(tr("RedLock (Redisson's RedissonRedLock) needs N/2 + 1 servers held by the same "
                             "holder; MultiLock needs all N. Validity = the shortest TTL among the agreeing servers"));
    layout->addWidget(m_verdict);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("Server"), tr("Lock name"), tr("State"),
                                        tr("Holder (client id : thread id)"), tr("Hold count"), tr("TTL")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);
    auto *hint = new QLabel(tr("Read-only. To acquire a RedLock with Redisson's timing rules: "
                               "<code>lockscope-cli redlock acquire NAME --servers URL,…</code>"),
                            this);
    hint->setTextFormat(Qt::RichText);
    layout->addWidget(hint);

    m_refresh = new QTimer(this);
    m_refresh->setInterval(1000);
    connect(m_refresh, &QTimer::timeout, this, [this] {
        if (m_session)
            m_session->refresh();
    });
    m_countdown = new QTimer(this);
    m_countdown->setInterval(100);
    connect(m_countdown, &QTimer::timeout, this, &RedLockDialog::tick);
    connect(m_watch, &QPushButton::clicked, this, &RedLockDialog::start);
}

RedLockDialog::~RedLockDialog()
{
    stop();
}

bool RedLockDialog::watch(const QString &servers, const QString &name)
{
    m_servers->setText(servers);
    m_name->setText(name);
    start();
    return m_session != nullptr;
}

void RedLockDialog::stop()
{
    m_refresh->stop();
    m_countdown->stop();
    delete m_session; // its connections close; replies still in flight are dropped with it
    m_session = nullptr;
}

void RedLockDialog::start()
{
    stop();
    const QString name = m_name->text().trimmed();
    const QStringList urls = m_servers->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
    QVector<RedisEndpoint> targets;
    QSet<QString> seen;
    for (const QString &raw : urls) {
        QString error;
        const RedisEndpoint ep = RedisEndpoint::parse(raw.trimmed(), &error);
        if (!ep.isValid()) {
            m_verdict->setText(
                tr("<span style='color:#c0392b'>'%1' is not a Redis URL: %2</span>")
                    .arg(RedisEndpoint::redactUrl(raw.trimmed()).toHtmlEscaped(), error.toHtmlEscaped()));
            return;
        }
        if (seen.contains(ep.address())) {
            m_verdict->setText(tr("<span style='color:#c0392b'>%1 is named twice: a RedLock needs independent "
                                  "servers</span>")
                                   .arg(ep.address()));
            return;
        }
        seen.insert(ep.address());
        targets << ep;
    }
    if (targets.isEmpty() || name.isEmpty()) {
        m_verdict->setText(tr("Give at least one server URL and the lock name."));
        return;
    }
    // Read only, on the GUI thread: every read is asynchronous (the GUI never waits on a server;
    // a stopped one answers within the connect timeout) and one per second is little work.
    RedLockSession::Options options;
    options.servers = targets;
    options.name = name;
    options.readOnly = true;
    m_session = new RedLockSession(options, this);
    connect(m_session, &RedLockSession::statusRead, this, &RedLockDialog::showStatus);
    m_verdict->setText(tr("Reading %n server(s)…", nullptr, int(targets.size())));
    m_session->refresh();
    m_refresh->start();
    m_countdown->start();
}

void RedLockDialog::showStatus(const RedLockStatus &status)
{
    m_status = status;
    m_table->setRowCount(int(status.servers.size()));
    for (int r = 0; r < status.servers.size(); ++r) {
        const RedLockServerState &s = status.servers[r];
        auto set = [this, r](int col, const QString &text, const QColor &color = QColor()) {
            auto *item = new QTableWidgetItem(text);
            if (color.isValid())
                item->setForeground(color);
            m_table->setItem(r, col, item);
        };
        const bool agrees = status.hasQuorum && s.holderFields().contains(status.holder);
        set(ServerCol, s.server);
        set(NameCol, s.name);
        QString state = RedLockServerState::stateName(s.state);
        if (!s.error.isEmpty())
            state += QStringLiteral(": ") + s.error;
        set(StateCol, state,
            s.state == RedLockServerState::State::Unreachable ? QColor(0xc0, 0x39, 0x2b)
            : agrees                                          ? QColor(0x2e, 0x9d, 0x5b)
                                                              : QColor());
        set(HolderCol, s.holderFields().join(QStringLiteral(", ")), agrees ? QColor(0x2e, 0x9d, 0x5b) : QColor());
        set(HoldCountCol,
            s.state == RedLockServerState::State::Held ? QString::number(s.snapshot.totalHoldCount()) : QString());
        set(TtlCol, QString());
    }
    tick();
    emit statusShown();
}

void RedLockDialog::tick()
{
    if (m_status.serverCount() == 0)
        return;
    const qint64 now = LockSnapshot::steadyNowMs();
    for (int r = 0; r < m_status.servers.size() && r < m_table->rowCount(); ++r) {
        const RedLockServerState &s = m_status.servers[r];
        if (QTableWidgetItem *item = m_table->item(r, TtlCol))
            item->setText(s.state == RedLockServerState::State::Held ? DurationText::ttl(s.remainingTtlMs(now))
                                                                     : QString());
    }
    // The validity counts down from the last read like the TTLs.
    const qint64 validity = m_status.validityMs < 0
                                ? m_status.validityMs
                                : qMax<qint64>(0, m_status.validityMs - (now - m_status.evaluatedAtSteadyMs));
    QString text;
    if (m_status.hasQuorum) {
        text = tr("<span style='color:#2e9d5b'>●</span> <b>Quorum: %1 of %2 servers</b> (need %3) agree on "
                  "<b>%4</b>; valid for %5")
                   .arg(m_status.agreeing)
                   .arg(m_status.serverCount())
                   .arg(m_status.quorum)
                   .arg(m_status.holder.toHtmlEscaped(), DurationText::ttl(validity));
    } else {
        text = tr("<span style='color:#c0392b'>●</span> <b>No quorum</b>: %1 of %2 servers agree%3 (need %4)")
                   .arg(m_status.agreeing)
                   .arg(m_status.serverCount())
                   .arg(m_status.holder.isEmpty() ? QString() : tr(" on %1").arg(m_status.holder.toHtmlEscaped()))
                   .arg(m_status.quorum);
        if (m_status.sameThreadServers >= m_status.quorum)
            text += tr("<br>%1 held servers share a thread id: a Java RedissonRedLock built from several "
                       "RedissonClients writes a different client id on each server.")
                        .arg(m_status.sameThreadServers);
    }
    if (m_status.unreachableCount() > 0)
        text +=
            tr("<br>%n server(s) unreachable: they count against the quorum.", nullptr, m_status.unreachableCount());
    m_verdict->setText(text);
}

} // namespace lockscope
