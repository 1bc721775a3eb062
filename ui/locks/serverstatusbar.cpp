#include "locks/serverstatusbar.h"
#include "common/statuscolours.h"

#include "text/displaytext.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <limits>

namespace lockscope
{

ServerStatusBar::ServerStatusBar(const QString &address, bool readOnly, QWidget *parent) : QStatusBar(parent)
{
    m_modeLabel = new QLabel(this);
    m_serverLabel = new QLabel(address, this);
    m_serverLabel->setToolTip(tr("Redis server (credentials are never shown)"));
    m_countLabel = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMinimumWidth(260);
    m_progress->setRange(0, 0);
    m_progress->setFormat(tr("scanning…"));
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancelScan = new QPushButton(tr("Stop scan"), this);
    m_cancelScan->setToolTip(tr("Stop scanning for locks (Esc). Locks found so far stay and are watched live"));
    m_cancelScan->setShortcut(QKeySequence(Qt::Key_Escape));
    m_cancelScan->hide();
    connect(m_cancelScan, &QPushButton::clicked, this, &ServerStatusBar::cancelScanRequested);
    m_enableNotifications = new QPushButton(tr("Enable keyspace notifications"), this);
    m_enableNotifications->setToolTip(tr("Runs CONFIG SET notify-keyspace-events with K, g, h and x added, so "
                                         "LockScope sees changes live instead of polling"));
    m_enableNotifications->hide();
    addWidget(m_modeLabel);
    addWidget(m_serverLabel);
    addWidget(m_countLabel);
    m_mastersLabel = new QLabel(this);
    m_mastersLabel->setToolTip(tr("Redis Cluster: masters LockScope reads from now, of those it watches. "
                                  "The Cluster tab shows each one"));
    m_mastersLabel->hide();
    addPermanentWidget(m_mastersLabel); // permanent: a temporary message must not hide it
    addPermanentWidget(m_enableNotifications);
    addPermanentWidget(m_progress);
    addPermanentWidget(m_cancelScan);
    if (readOnly) {
        auto *ro = new QLabel(tr(" READ-ONLY "), this);
        ro->setStyleSheet(QStringLiteral("background:#555; color:white; border-radius:3px; padding:1px 6px;"));
        ro->setToolTip(tr("Started with --read-only: LockScope writes nothing to Redis"));
        addPermanentWidget(ro);
    }
}

void ServerStatusBar::showMode(WatchMode mode, const QString &detail)
{
    m_modeLabel->setText(QStringLiteral("<span style='color:%1'>●</span> %2")
                             .arg(StatusColours::mode(mode).name(), watchModeName(mode)));
    m_modeLabel->setToolTip(detail);
    if (mode == WatchMode::Disconnected || mode == WatchMode::Polling)
        showMessage(detail, 15000);
}

void ServerStatusBar::showReplay(const QString &server)
{
    m_modeLabel->setText(QStringLiteral("<span style='color:#7b4f9d'>●</span> ") + tr("replay"));
    m_modeLabel->setToolTip(tr("Replaying a recording: nothing is read from or written to Redis"));
    m_serverLabel->setText(server);
}

void ServerStatusBar::showCount(int shown, int total, const QString &filter)
{
    m_countLabel->setText(shown == total ? tr("%n lock(s)", nullptr, total)
                                         : tr("%1 of %2 locks match \"%3\"").arg(shown).arg(total).arg(filter));
}

void ServerStatusBar::showCountUnknown(const QString &why)
{
    m_countLabel->setText(why);
}

void ServerStatusBar::showMasters(int live, int total)
{
    m_mastersLabel->setText(
        QStringLiteral("<span style='color:%1'>●</span> ")
            .arg(StatusColours::mode(live == total ? WatchMode::Live : WatchMode::Disconnected).name()) +
        tr("%1 of %2 masters live").arg(live).arg(total));
    if (m_mastersLabel->isHidden())
        m_mastersLabel->show();
}

void ServerStatusBar::showProgress(bool visible, qint64 scanned, qint64 found, qint64 approxTotalKeys)
{
    m_progress->setVisible(visible);
    m_cancelScan->setVisible(visible);
    if (approxTotalKeys > 0) {
        // Scaled to thousands: QProgressBar takes ints, keyspaces reach billions.
        m_progress->setRange(0, int(qMin<qint64>(approxTotalKeys / 1000 + 1, std::numeric_limits<int>::max())));
        m_progress->setValue(int(qMin<qint64>(scanned, approxTotalKeys) / 1000));
        m_progress->setFormat(tr("scanned %1 of ~%2 keys, %3 locks")
                                  .arg(DisplayText::compactCount(qMin(scanned, approxTotalKeys)),
                                       DisplayText::compactCount(approxTotalKeys), DisplayText::compactCount(found)));
    } else {
        m_progress->setRange(0, 0); // total unknown (DBSIZE refused): a busy bar with the counts
        m_progress->setFormat(
            tr("scanned %1 keys, %2 locks")
                .arg(DisplayText::compactCount(qMax<qint64>(0, scanned)), DisplayText::compactCount(found)));
    }
    m_progress->setToolTip(tr("SCAN in steps sized to stay under a millisecond each; Esc stops it"));
}

void ServerStatusBar::setNotificationsOffered(bool offered)
{
    m_enableNotifications->setVisible(offered);
}

} // namespace lockscope
