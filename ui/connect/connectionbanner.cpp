#include "connect/connectionbanner.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>

namespace lockscope
{

ConnectionBanner::ConnectionBanner(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("connectionBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_connect = new QPushButton(tr("Connect…"), this);
    m_connect->setToolTip(tr("Open another connection (File > Connect…, Ctrl+O)"));
    m_connect->setAccessibleName(tr("Connect to another server"));
    connect(m_connect, &QPushButton::clicked, this, &ConnectionBanner::connectRequested);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(10, 6, 10, 6);
    row->addWidget(m_text, 1);
    row->addWidget(m_connect, 0, Qt::AlignVCenter);
    setAccessibleName(tr("Connection state"));
    hide();
}

bool ConnectionBanner::isAuthenticationProblem(const QString &detail)
{
    return detail.contains(QLatin1String("NOAUTH")) || detail.contains(QLatin1String("WRONGPASS")) ||
           detail.contains(QLatin1String("refused the login"), Qt::CaseInsensitive) ||
           detail.contains(QLatin1String("password"), Qt::CaseInsensitive);
}

/** The command a permission sentence says the user may not run ("time"), empty when it names none. */
static QString refusedCommand(const QString &detail)
{
    static const QRegularExpression command(QStringLiteral("may not run '([^']+)'"));
    return command.match(detail).captured(1);
}

QString ConnectionBanner::grantFor(const QString &detail)
{
    static const QRegularExpression user(QStringLiteral("ACL user '([^']+)'"));
    const QString command = refusedCommand(detail);
    if (command.isEmpty())
        return QString();
    const auto u = user.match(detail);
    return QStringLiteral("ACL SETUSER %1 +%2")
        .arg(u.hasMatch() ? u.captured(1) : QStringLiteral("<user>"), command.toLower());
}

void ConnectionBanner::setReadsRefused(const QString &server, const QString &detail)
{
    // A sentence that names the refused command beats a later one that does not (every failed
    // read reports again; only the server's ACL probe names the command).
    if (!grantFor(m_refusal).isEmpty() && grantFor(detail).isEmpty() && isVisible())
        return;
    m_refusal = detail;
    const QString grant = grantFor(detail);
    const QString command = refusedCommand(detail);
    const QString what = !command.isEmpty() ? tr("the command <b>%1</b>").arg(command.toUpper().toHtmlEscaped())
                                            : tr("a command its reads need");
    m_text->setText(
        tr("<b>%1 refuses LockScope's reads:</b> the connection's ACL user may not run %2, which every lock read "
           "uses. Nothing can be read, so the empty table does <b>not</b> mean there are no locks.<br>%3")
            .arg(server.toHtmlEscaped(), what,
                 grant.isEmpty() ? tr("Ask for read permissions (%1).").arg(detail.toHtmlEscaped())
                                 : tr("Grant it (an administrator, on the server): <code>%1</code>, or connect as "
                                      "another user.")
                                       .arg(grant.toHtmlEscaped())));
    m_text->setToolTip(detail);
    m_connect->setVisible(true);
    paint(QColor(0xc0, 0x39, 0x2b));
    show();
}

void ConnectionBanner::clearReadsRefused()
{
    m_refusal.clear();
}

void ConnectionBanner::paint(const QColor &tint)
{
    QPalette p = palette();
    const QColor base = p.color(QPalette::Window);
    // A light wash of the state's colour over the window colour: readable in light and dark themes.
    p.setColor(QPalette::Window,
               QColor::fromRgbF(base.redF() * 0.8 + tint.redF() * 0.2, base.greenF() * 0.8 + tint.greenF() * 0.2,
                                base.blueF() * 0.8 + tint.blueF() * 0.2));
    setPalette(p);
    setStyleSheet(QStringLiteral("#connectionBanner { border-left: 5px solid %1; }").arg(tint.name()));
}

void ConnectionBanner::setState(WatchMode mode, const QString &server, const QString &detail, qint64 lastDataMs)
{
    if (!m_refusal.isEmpty() && mode != WatchMode::Disconnected && mode != WatchMode::Connecting) {
        setReadsRefused(server, m_refusal); // the refusal is what the operator must act on first
        return;
    }
    const QString where = server.toHtmlEscaped();
    const QString why = detail.toHtmlEscaped();
    const QString asOf =
        lastDataMs > 0 ? QDateTime::fromMSecsSinceEpoch(lastDataMs).toString(QStringLiteral("HH:mm:ss")) : QString();
    QString html;
    QColor tint;
    switch (mode) {
    case WatchMode::Live:
        hide();
        return;
    case WatchMode::Connecting:
        tint = QColor(0xe6, 0x9b, 0x00);
        html = tr("<b>Connecting to %1…</b> No data yet: an empty table does not mean there are no locks.").arg(where);
        break;
    case WatchMode::Disconnected:
        tint = QColor(0xc0, 0x39, 0x2b);
        if (isAuthenticationProblem(detail)) {
            // The monitor's sentence names command-line options; a GUI user gets the button instead.
            html = tr("<b>Authentication needed on %1.</b> The server wants a password, or refused the user "
                      "and password given. Nothing can be read until the login works: use <i>Connect…</i> with "
                      "the right user and password.")
                       .arg(where);
        } else {
            html = tr("<b>Not connected to %1.</b> %2<br>%3 Acquire, release and force unlock are disabled until "
                      "the connection is back.")
                       .arg(where, why,
                            asOf.isEmpty()
                                ? tr("Nothing was read yet: an empty table does not mean there are no locks.")
                                : tr("The rows are the last data read, as of %1, and may be out of date.").arg(asOf));
        }
        break;
    case WatchMode::Polling:
        tint = QColor(0x1e, 0x88, 0xe5);
        // Off, or not known: a user refused CONFIG GET cannot tell, and must not be told they are off.
        html = (detail.contains(QLatin1String("config|get"), Qt::CaseInsensitive) ||
                detail.contains(QLatin1String("CONFIG GET")))
                   ? tr("<b>Polling %1:</b> LockScope may not ask whether keyspace notifications are on (CONFIG GET "
                        "is refused to this user), so it re-reads instead: changes show up at the next re-read, "
                        "and holds shorter than that may not show at all. %2")
                         .arg(where, why)
                   : tr("<b>Polling %1:</b> keyspace notifications are off, so changes show up at the next re-read, "
                        "and holds shorter than that may not show at all. %2")
                         .arg(where, why);
        break;
    }
    paint(tint);
    m_text->setText(html);
    m_text->setToolTip(detail);
    m_connect->setVisible(mode != WatchMode::Polling);
    show();
}

QString ConnectionBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace lockscope
