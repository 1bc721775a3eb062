#pragma once

#include "protocol/clientidentity.h"

#include "common/actornames.h"
#include "locks/leasealerts.h"

#include "protocol/locksnapshot.h"

#include <QWidget>

#include <functional>

class QFormLayout;
class QLabel;
class QTableWidget;
class QPlainTextEdit;

namespace lockscope
{

/**
 * Detail of the selected lock: kind, TTL left (ticking), holders with hold counts, waiters
 * (fair queue with deadlines, or unlock-channel subscribers), the raw Redis keys and channels
 * involved (so an operator can check them with redis-cli) and the problems found.
 */
class LockDetailPanel : public QWidget
{
    Q_OBJECT
public:
    explicit LockDetailPanel(QWidget *parent = nullptr);

    void setOwnClientId(const QString &clientId) { m_ownClientId = clientId; }
    /**
     * The clock countdowns are computed against, in the unit of LockSnapshot::readAtSteadyMs: the
     * monotonic LockSnapshot::steadyNowMs() by default, ReplayPlayer::clockMs() in a replay.
     */
    void setClock(std::function<qint64()> clock) { m_clock = std::move(clock); }
    /** Workshop mode: holders and waiters shown by name ("A"), the client id in the tooltip; the
     *  columns are then headed "Holder" and "Waiter". */
    void setActorNames(const ActorNames &names);
    /** What is known of the clients (LockSession::clientsUpdated): the holders' Client column
     *  (host and state, the whole identity in its tooltip). */
    void setClientIdentities(const QVector<ClientIdentity> &clients);
    /** Shows `snapshot`; a default-constructed one (empty name) clears the panel. */
    void setSnapshot(const LockSnapshot &snapshot);
    const LockSnapshot &snapshot() const { return m_snapshot; }
    /**
     * The lock's lease alert (LockTableModel::leaseAlert), nullptr for none: a paragraph under the
     * title saying who lost the lease and when, that the old holder may still be running its
     * critical section, the next holder and, once the old holder came back, the window in which
     * both may have run it. Set after setSnapshot() (which keeps it).
     */
    void setLeaseAlert(const LeaseAlerts::Alert *alert, const ActorNames &names);
    bool hasLeaseAlert() const;
    /** The paragraph shown (rich text), empty when none. */
    QString leaseText() const;
    /** Refreshes the countdowns (called by the window's animation timer). */
    void tick();
    /** Compact (workshop projector mode): leaves out the raw Redis keys and channels, the naming
     *  notes and the TTL / waiting lines (the table's row shows both), and sizes the holder and
     *  waiter tables to their rows, so holders and the waiter queue fit a 720-pixel-high screen
     *  next to the event log. */
    void setCompact(bool compact);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateProblemColour();
    /** The lease paragraph's border in the alert's colour, its text in the panel's colour and size. */
    void styleLease();
    QString m_leaseColour = QStringLiteral("#c0392b");
    /** The lease paragraph as high as its wrapped text. */
    void fitLease();
    /** Compact: each table as high as its rows (at least one); otherwise the usual maximum. */
    void fitTables();

    ActorNames m_names;
    LockSnapshot m_snapshot;
    QString m_ownClientId;
    std::function<qint64()> m_clock = &LockSnapshot::steadyNowMs;
    QLabel *m_title = nullptr;
    QLabel *m_stale = nullptr; ///< "Not connected: … as of hh:mm:ss" (never pass old data off as live)
    QLabel *m_lease = nullptr; ///< the lease alert's paragraph, hidden when there is none
    QLabel *m_ttl = nullptr;
    QLabel *m_waiting = nullptr;
    QLabel *m_notes = nullptr; ///< what the data cannot tell (name, kind)
    QLabel *m_problems = nullptr;
    QTableWidget *m_holders = nullptr;
    QHash<QString, ClientIdentity> m_clients; ///< by client id
    QTableWidget *m_waiters = nullptr;
    QLabel *m_waitersTitle = nullptr;
    QPlainTextEdit *m_keys = nullptr;
    QLabel *m_keysTitle = nullptr;
    QLabel *m_holdersTitle = nullptr;
    QFormLayout *m_form = nullptr; ///< TTL left, Waiting
    bool m_compact = false;
};

} // namespace lockscope
