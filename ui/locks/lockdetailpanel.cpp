#include "locks/lockdetailpanel.h"
#include "redis/redisbytes.h"
#include "text/displaytext.h"
#include "text/durationtext.h"

#include "locks/locktablemodel.h"

#include "protocol/locknames.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QVBoxLayout>

namespace lockscope
{

namespace
{

/** A read-only list in the detail pane (holders, waiters): fitted columns but `stretchColumn`,
 *  names elided in the middle (client ids differ at both ends), at most `maxHeightPx` tall, and
 *  Tab goes on to the next pane, as in every pane. */
QTableWidget *listTable(const QStringList &titles, int stretchColumn, int maxHeightPx, const QString &accessibleName,
                        QWidget *parent)
{
    auto *table = new QTableWidget(0, int(titles.size()), parent);
    table->setHorizontalHeaderLabels(titles);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    table->setWordWrap(false);
    table->setTextElideMode(Qt::ElideMiddle);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setMaximumHeight(maxHeightPx);
    table->setTabKeyNavigation(false);
    table->setAccessibleName(accessibleName);
    return table;
}

} // namespace

LockDetailPanel::LockDetailPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_title = new QLabel(tr("Select a lock to see its holders, waiters and keys."), this);
    m_title->setWordWrap(true);
    QFont f = m_title->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    m_title->setFont(f);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_title);

    // A lock read before the connection was lost says so above everything else: old data must
    // not pass for live.
    m_stale = new QLabel(this);
    m_stale->setObjectName(QStringLiteral("staleLabel"));
    m_stale->setWordWrap(true);
    m_stale->setStyleSheet(QStringLiteral("QLabel { border-left: 4px solid #c0392b; padding-left: 6px; }"));
    m_stale->setVisible(false);
    layout->addWidget(m_stale);

    // A lost lease: under the title, before the countdown, in the problems' colour.
    m_lease = new QLabel(this);
    m_lease->setObjectName(QStringLiteral("leaseLabel"));
    m_lease->setWordWrap(true);
    m_lease->setTextFormat(Qt::RichText);
    m_lease->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_lease->setVisible(false);
    layout->addWidget(m_lease);

    auto *form = new QFormLayout;
    m_form = form;
    m_ttl = new QLabel(this);
    m_ttl->setToolTip(tr("PTTL of the lock hash, counted down locally since the last read"));
    m_waiting = new QLabel(this);
    m_waiting->setWordWrap(true);
    form->addRow(tr("TTL left:"), m_ttl);
    form->addRow(tr("Waiting:"), m_waiting);
    layout->addLayout(form);

    m_holdersTitle = new QLabel(tr("<b>Holders</b>"), this);
    layout->addWidget(m_holdersTitle);
    m_holders =
        listTable({tr("Client id"), tr("Thread id"), tr("Hold count"), tr("Mode"), tr("Hold TTLs"), tr("Client")}, 0,
                  110, tr("Holders"), this);
    m_holders->horizontalHeaderItem(5)->setToolTip(
        tr("Who the holder's client is: its host and whether it is still connected to Redis (learnt from its lock "
           "scripts; Clients › Identify finds it at once)"));
    m_holders->horizontalHeaderItem(4)->setToolTip(
        tr("Read-write locks: the TTL of each read hold's rwlock_timeout key. A hold whose key is gone belongs "
           "to a dead reader"));
    layout->addWidget(m_holders);

    m_waitersTitle = new QLabel(tr("<b>Waiter queue</b> (FIFO; deadlines from the timeout set)"), this);
    layout->addWidget(m_waitersTitle);
    m_waiters =
        listTable({tr("#"), tr("Waiter (client id:thread id)"), tr("Deadline in")}, 1, 130, tr("Waiter queue"), this);
    m_waiters->setToolTip(tr("Threads queued in redisson_lock_queue:{name}, with their deadline from "
                             "redisson_lock_timeout:{name} relative to the server clock"));
    layout->addWidget(m_waiters);

    m_notes = new QLabel(this);
    m_notes->setWordWrap(true);
    m_notes->setVisible(false);
    layout->addWidget(m_notes);

    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    updateProblemColour();
    layout->addWidget(m_problems);

    m_keysTitle = new QLabel(tr("<b>Redis keys and channels</b>"), this);
    layout->addWidget(m_keysTitle);
    m_keys = new QPlainTextEdit(this);
    m_keys->setReadOnly(true);
    m_keys->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_keys->setMaximumHeight(120);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::TypeWriter);
    m_keys->setFont(mono);
    m_keys->setTabChangesFocus(true);
    m_keys->setAccessibleName(tr("Redis keys and channels"));
    layout->addWidget(m_keys);
    layout->addStretch(1);
    setSnapshot(LockSnapshot());
}

void LockDetailPanel::setClientIdentities(const QVector<ClientIdentity> &clients)
{
    m_clients.clear();
    for (const auto &c : clients)
        m_clients.insert(c.clientId, c);
    if (!m_snapshot.name.isEmpty())
        setSnapshot(m_snapshot);
}

void LockDetailPanel::setSnapshot(const LockSnapshot &s)
{
    m_snapshot = s;
    const bool any = !s.name.isEmpty();
    m_holders->setRowCount(0);
    m_waiters->setRowCount(0);
    m_stale->setVisible(any && s.stale);
    m_stale->setText(any && s.stale ? tr("Not connected: this is the lock %1, the last read before LockScope lost the "
                                         "connection. It may have been released or taken since.")
                                          .arg(LockTableModel::staleText(s))
                                    : QString());
    // Greyed like its row in the table (enabled again by the next read).
    m_holders->setEnabled(!s.stale);
    m_waiters->setEnabled(!s.stale);
    if (!any) {
        m_lease->clear();
        m_lease->setVisible(false);
        fitLease();
        m_title->setText(tr("Select a lock to see its holders, waiters and keys."));
        m_ttl->clear();
        m_waiting->clear();
        m_notes->clear();
        m_notes->setVisible(false);
        m_problems->clear();
        m_keys->clear();
        return;
    }
    // The kind as the table names it ("Reentrant lock" for one the data cannot tell from an idle
    // fair lock); the note below the title keeps the doubt.
    m_title->setText(QStringLiteral("%1  <span style='font-weight:normal'>(%2)</span>")
                         .arg(DisplayText::escaped(s.name).toHtmlEscaped(), lockKindLabel(s.kind)));
    m_holders->setRowCount(s.holders.size());
    for (int i = 0; i < s.holders.size(); ++i) {
        const auto &h = s.holders[i];
        auto *who = new QTableWidgetItem(m_names.label(h.field, DisplayText::escaped(h.clientId)) +
                                         (h.clientId == m_ownClientId ? tr(" (LockScope)") : QString()));
        who->setToolTip(tr("client id %1").arg(DisplayText::escaped(h.clientId)));
        m_holders->setItem(i, 0, who);
        m_holders->setItem(i, 1, new QTableWidgetItem(DisplayText::escaped(h.threadId)));
        m_holders->setItem(i, 2, new QTableWidgetItem(QString::number(h.holdCount)));
        m_holders->setItem(i, 3, new QTableWidgetItem(h.mode));
        QStringList ttls;
        for (qint64 t : h.holdTtlsMs)
            ttls << (t == -2 ? tr("gone") : DurationText::ttl(t));
        m_holders->setItem(i, 4, new QTableWidgetItem(ttls.join(QStringLiteral(", "))));
        ClientIdentity c = m_clients.value(h.clientId);
        c.clientId = h.clientId;
        // One word that fits a narrow panel; who and where in the tooltip.
        auto *client = new QTableWidgetItem(c.evidence == ClientIdentity::Evidence::Self     ? tr("LockScope")
                                            : c.state == ClientIdentity::State::Disconnected ? tr("gone")
                                            : c.state == ClientIdentity::State::Connected    ? tr("connected")
                                                                                             : tr("?"));
        client->setToolTip(DisplayText::escaped(c.summary()));
        m_holders->setItem(i, 5, client);
    }
    m_holders->setColumnHidden(3, s.kind != LockKind::ReadWriteLock);
    m_holders->setColumnHidden(4, s.kind != LockKind::ReadWriteLock);
    m_waiters->setVisible(s.kind == LockKind::FairLock);
    m_waitersTitle->setVisible(s.kind == LockKind::FairLock);
    m_waiters->setRowCount(s.waiters.size());
    for (int i = 0; i < s.waiters.size(); ++i) {
        const auto &w = s.waiters[i];
        m_waiters->setItem(i, 0, new QTableWidgetItem(QString::number(w.position)));
        auto *waiter = new QTableWidgetItem(m_names.label(w.field, DisplayText::escaped(w.field)));
        waiter->setToolTip(DisplayText::escaped(w.field));
        m_waiters->setItem(i, 1, waiter);
        m_waiters->setItem(i, 2, new QTableWidgetItem());
    }
    if (s.kind == LockKind::FairLock)
        m_waiting->setText(tr("%1 thread(s) in the waiter queue").arg(s.queueLength));
    else if (s.kind == LockKind::ReadWriteLock)
        m_waiting->setText(
            tr("mode <b>%1</b>; %2 Redisson client(s) subscribed to redisson_rwlock (clients, not threads)")
                .arg(s.rwMode.toHtmlEscaped())
                .arg(s.subscribers));
    else
        m_waiting->setText(
            tr("%1 Redisson client(s) subscribed to the unlock channel (clients, not threads)").arg(s.subscribers));
    // What the data cannot tell (fair or plain, whose keys `x` and `{x}` share), in the normal text colour:
    // information, not a problem. Then the problems, in the warning colour.
    QStringList notes;
    if (!s.nameNote().isEmpty())
        notes << QStringLiteral("ℹ Name: ") + s.nameNote();
    if (!s.kindCertain && !s.kindNote.isEmpty())
        notes << QStringLiteral("ℹ Kind: fair or plain: ") + s.kindNote;
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty() && !m_compact);
    QStringList problems;
    if (s.isHeld() && s.replication == LockSnapshot::Replication::NotReplicated)
        problems << tr("⚠ A failover now would lose this lock: no replica has it, %1 s")
                        .arg(s.exposedMs / 1000.0, 0, 'f', 1);
    for (const QString &p : s.problems)
        problems << QStringLiteral("⚠ ") + p;
    m_problems->setText(problems.join(QLatin1Char('\n')));
    m_problems->setToolTip(s.replication == LockSnapshot::Replication::NotReplicated ? s.replicationNote : QString());

    QStringList keys;
    keys << QStringLiteral("HASH     %1").arg(s.name);
    keys << QStringLiteral("CHANNEL  %1").arg(LockNames::unlockChannel(s.name));
    if (s.kind == LockKind::ReadWriteLock)
        keys[1] = QStringLiteral("CHANNEL  %1").arg(LockNames::readWriteChannel(s.name));
    if (s.kind == LockKind::FairLock) {
        keys << QStringLiteral("LIST     %1 (%2 entries)").arg(LockNames::fairQueueKey(s.name)).arg(s.queueLength);
        keys << QStringLiteral("ZSET     %1 (%2 entries)").arg(LockNames::fairTimeoutKey(s.name)).arg(s.timeoutSetSize);
        for (const auto &t : s.timeoutSet)
            keys << QStringLiteral("  member %1 = %2").arg(t.first).arg(t.second);
    }
    if (s.token >= 0)
        keys << QStringLiteral("STRING   %1 = %2").arg(LockNames::tokenKey(s.name)).arg(s.token);
    if (s.kind == LockKind::FasterMultiLock) {
        for (const auto &v : s.multiLockValues)
            keys << QStringLiteral("  value  %1 -> %2, count %3, expires %4 (%5)")
                        .arg(v.fieldId, v.holder)
                        .arg(v.holdCount)
                        .arg(v.expireEpochMs)
                        .arg(v.expireEpochMs < 0 ? tr("no expiry field")
                             : v.isLive(s.serverTimeMs)
                                 ? tr("in %1").arg(DurationText::ttl(v.expireEpochMs - s.serverTimeMs))
                                 : tr("expired"));
    } else {
        for (const auto &h : s.holders)
            keys << QStringLiteral("  field  %1 = %2").arg(h.field).arg(h.holdCount);
    }
    // Names and fields that are not UTF-8 show their bytes as \xNN, so they are shown, not dropped
    // or garbled.
    m_keys->setPlainText(RedisBytes::displayed(keys.join(QLatin1Char('\n'))));
    fitTables();
    tick();
}

void LockDetailPanel::setLeaseAlert(const LeaseAlerts::Alert *alert, const ActorNames &names)
{
    const QString text = alert && !m_snapshot.name.isEmpty() ? LeaseAlerts::detailHtml(*alert, names) : QString();
    // The lease paragraph takes the place of the naming notes (what the data cannot tell): both
    // do not fit beside the holders in a dashboard-sized panel.
    m_notes->setVisible(text.isEmpty() && !m_notes->text().isEmpty() && !m_compact);
    if (text == m_lease->text() && m_lease->isVisible() == !text.isEmpty())
        return;
    m_lease->setText(text);
    m_lease->setToolTip(alert ? LeaseAlerts::tooltip(*alert, names) : QString()); // the full holder fields
    m_leaseColour = alert ? LeaseAlerts::badgeColor(*alert).name() : QStringLiteral("#c0392b");
    styleLease();
    m_lease->setVisible(!text.isEmpty());
    fitLease();
}

void LockDetailPanel::fitLease()
{
    // A wrapped label in a crowded panel gets squeezed below its text (the holder ids do not
    // break): it keeps the height its text needs at its width, and the keys box gives way.
    if (m_lease->text().isEmpty()) {
        m_lease->setMinimumHeight(0);
        return;
    }
    const int width = m_lease->width() > 50 ? m_lease->width() : contentsRect().width() - 20;
    m_lease->setMinimumHeight(m_lease->heightForWidth(qMax(100, width)));
}

void LockDetailPanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitLease();
}

bool LockDetailPanel::hasLeaseAlert() const
{
    return !m_lease->text().isEmpty();
}

QString LockDetailPanel::leaseText() const
{
    return m_lease->text();
}

void LockDetailPanel::tick()
{
    if (m_snapshot.name.isEmpty())
        return;
    const qint64 now = m_clock();
    m_ttl->setText(m_snapshot.stale ? tr("unknown (%1)").arg(LockTableModel::staleText(m_snapshot))
                                    : DurationText::ttl(m_snapshot.remainingTtlMs(now)));
    const qint64 serverNow = m_snapshot.serverTimeMs + (now - m_snapshot.readAtSteadyMs);
    for (int i = 0; i < m_snapshot.waiters.size() && i < m_waiters->rowCount(); ++i) {
        const auto &w = m_snapshot.waiters[i];
        QTableWidgetItem *item = m_waiters->item(i, 2);
        if (!item)
            continue;
        if (!w.deadlineRaw.isEmpty()) {
            item->setText(tr("deadline '%1' (not an epoch-ms time)").arg(w.deadlineRaw));
            continue;
        }
        if (w.deadlineEpochMs < 0) {
            item->setText(tr("no deadline (not in the timeout set)"));
            continue;
        }
        const qint64 left = w.deadlineEpochMs - serverNow;
        item->setText(left >= 0 ? DurationText::ttl(left) : tr("passed %1 ago").arg(DurationText::ttl(-left)));
        item->setToolTip(left >= 0 ? tr("The waiter must retry before this or it is considered dead")
                                   : tr("Past its deadline: this waiter blocks the lock until the next acquire "
                                        "attempt by anyone prunes it"));
        item->setForeground(left >= 0 ? palette().color(QPalette::Text) : QColor(0xc0, 0x39, 0x2b));
    }
}

void LockDetailPanel::setCompact(bool compact)
{
    m_compact = compact;
    m_keys->setVisible(!compact);
    m_keysTitle->setVisible(!compact);
    if (compact)
        m_notes->setVisible(false);
    m_holdersTitle->setVisible(!compact); // the table's "Holder" header says it
    for (int row = 0; row < m_form->rowCount(); ++row)
        m_form->setRowVisible(row, !compact);
    layout()->setSpacing(compact ? 2 : -1);
    fitTables();
}

void LockDetailPanel::setActorNames(const ActorNames &names)
{
    m_names = names;
    m_holders->horizontalHeaderItem(0)->setText(names.isEmpty() ? tr("Client id") : tr("Holder"));
    m_waiters->horizontalHeaderItem(1)->setText(names.isEmpty() ? tr("Waiter (client id:thread id)") : tr("Waiter"));
}

void LockDetailPanel::fitTables()
{
    for (QTableWidget *t : {m_holders, m_waiters}) {
        if (!m_compact) {
            t->setMinimumHeight(0);
            t->setMaximumHeight(t == m_holders ? 110 : 130);
            continue;
        }
        const int rowHeight = qMax(t->verticalHeader()->defaultSectionSize(), t->fontMetrics().height() + 6);
        int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth() + 2;
        for (int r = 0; r < qMax(1, t->rowCount()); ++r)
            h += r < t->rowCount() ? qMax(t->rowHeight(r), rowHeight) : rowHeight;
        t->setMinimumHeight(h);
        t->setMaximumHeight(h);
    }
}

void LockDetailPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateProblemColour();
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        styleLease();
}

void LockDetailPanel::styleLease()
{
    // A style sheet takes its text colour and font from the application, not from this panel: in
    // the workshop's projector mode (a dark palette and large fonts on the window only) the
    // paragraph was small dark text on black. Both are set from the panel's own.
    m_lease->setStyleSheet(QStringLiteral("QLabel { border-left: 4px solid %1; padding-left: 6px; color: %2; "
                                          "font-size: %3pt; }")
                               .arg(m_leaseColour, palette().color(QPalette::WindowText).name())
                               .arg(font().pointSizeF(), 0, 'f', 1));
}

void LockDetailPanel::updateProblemColour()
{
    // The warning colour keeps its contrast on a dark palette (workshop projector mode) too.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    m_problems->setStyleSheet(dark ? QStringLiteral("color: #ffa060;") : QStringLiteral("color: #b03a00;"));
}

} // namespace lockscope
