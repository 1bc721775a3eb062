#pragma once

#include "protocol/clientidentity.h"
#include "protocol/locksnapshot.h"

#include <functional>

#include <QString>
#include <QVector>

namespace lockscope
{

/**
 * The human table of locks `lockscope-cli list` prints: NAME, KIND, HOLDER, HOLDS, TTL, WAITING,
 * PROBLEMS, one line per lock in the order given, names and fields escaped (DisplayText).
 */
class LockTable
{
public:
    /** Every column whole up to 200 characters a cell (a longer name or field keeps its first 139
     *  and last 60 characters around "…"; --json keeps them whole). `nowSteadyMs` is the steady
     *  clock the TTL countdowns are read at. */
    static QString format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs);
    /** The same fitted to `maxColumns` characters a line (0 = no limit): client ids elided in the
     *  middle ("b983c153…9a1b:1"), at most two holders then "+N more", and the last columns cut
     *  with "…"; one line per lock. */
    static QString format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns);
    /** The same with HOST and NAME columns after HOLDS (`list --wide`): each holder's client host and
     *  client name as `identity` knows them ("?" when not identified, "(gone)" when disconnected),
     *  and REPLICATED before WAITING (LockSnapshot::replication: "yes (N replicas)", "NO (exposed
     *  s)", "?" unknown, "-" free). */
    static QString format(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns,
                          const std::function<ClientIdentity(const QString &clientId)> &identity);
    /** Width of the terminal: COLUMNS, else the window size of stdout when it is a terminal, else 0. */
    static int terminalColumns();
    /** `rows` as left-justified columns two spaces apart, the last one not padded, one line each
     *  (`widths`: each column but the last, as columnWidths() gives them or narrower). Also the
     *  layout of `redlock status`'s tables. */
    static QString columns(const QVector<QStringList> &rows, const QVector<int> &widths);
    static QString columns(const QVector<QStringList> &rows) { return columns(rows, columnWidths(rows)); }
    /** The widest cell of each column but the last (0 for the last). */
    static QVector<int> columnWidths(const QVector<QStringList> &rows);
};

} // namespace lockscope
