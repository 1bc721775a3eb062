#include "clioptions.h"

#include "connectionoptions.h"
#include "redlockcommand.h"
#include "servecommand.h"
#include "workshopcommand.h"

#include "protocol/lockkinds.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QHash>

#include <algorithm>
#include <limits>

namespace lockscope
{

namespace
{

int editDistance(const QString &a, const QString &b)
{
    QVector<int> row(b.size() + 1);
    for (int j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (int i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= b.size(); ++j) {
            const int up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

} // namespace

QStringList CliOptions::kindWords()
{
    QStringList words; // the offered kinds' words (LockKinds: each kind's descriptor), in registration order
    for (const LockKindDescriptor &d : LockKinds::offered())
        words << d.word;
    return words;
}

QString CliOptions::kindChoices()
{
    const QStringList words = kindWords();
    return words.mid(0, words.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" or ") + words.last();
}

QCommandLineOption CliOptions::kindOption()
{
    return {QStringLiteral("kind"), LockKinds::kindHelp(), QStringLiteral("KIND")};
}

QList<QCommandLineOption> CliOptions::commandOptions()
{
    return {
        {QStringLiteral("read-only"), QStringLiteral("Refuse every write (acquire, force-unlock, config).")},
        {QStringLiteral("pattern"), QStringLiteral("Only locks whose name matches this Redis glob."),
         QStringLiteral("GLOB"), QStringLiteral("*")},
        {QStringLiteral("json"), QStringLiteral("One JSON object per line (field names: docs/reference/json.md).")},
        {QStringLiteral("lease-ms"),
         QStringLiteral("acquire: lease time in ms; 0 = watchdog (30000 ms, renewed every 10000 ms)."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("hold-ms"), QStringLiteral("acquire: release after N ms (default: hold until Ctrl-C)."),
         QStringLiteral("N")},
        {QStringLiteral("wait-ms"),
         QStringLiteral("acquire: wait up to N ms for the lock (default 0: one attempt; -1 forever). "
                        "remove-waiter: the wait the waiter enqueued with (default: derived "
                        "from the gaps between deadlines, else 300000)."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("thread-id"), QStringLiteral("acquire: thread id of the holder field (default 1)."),
         QStringLiteral("N"), QStringLiteral("1")},
        kindOption(),
        {QStringLiteral("yes"), QStringLiteral("force-unlock: do not ask for confirmation.")},
        {QStringLiteral("poll"), QStringLiteral("Poll instead of using keyspace notifications.")},
        {QStringLiteral("poll-budget"),
         QStringLiteral("watch, record, doctor --observe-ms when polling: load on Redis in commands/s as INFO counts "
                        "them; the locks are re-read in turn within it (default 2000)."),
         QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("progress"),
         QStringLiteral("Print the discovery progress on stderr (\"scanned 412k of ~1.0M keys, 83k locks\"); "
                        "on by itself when stderr is a terminal.")},
        {QStringLiteral("cluster"),
         QStringLiteral("Treat --url as one node of a Redis Cluster (detected by itself otherwise): list, show, "
                        "watch and force-unlock then cover every master.")},
        {QStringLiteral("enable-notifications"),
         QStringLiteral("Turn on keyspace notifications (CONFIG SET notify-keyspace-events) for live updates.")},
        {QStringLiteral("duration-ms"), QStringLiteral("watch: stop after N ms."), QStringLiteral("N")},
        {QStringLiteral("ttl-ms"), QStringLiteral("set-ttl: the TTL to give the lock, in ms."), QStringLiteral("N")},
        {QStringLiteral("out"), QStringLiteral("record: the recording file to write (.gz for gzip)."),
         QStringLiteral("FILE")},
        {QStringLiteral("csv"), QStringLiteral("export: write CSV (the only export format so far).")},
        {QStringLiteral("out-dir"),
         QStringLiteral("export: directory for the CSV files (default: next to the recording)."),
         QStringLiteral("DIR")},
        {QStringLiteral("audit-log"),
         QStringLiteral("Append the audit record of every write to this JSON-lines file (default: "
                        "~/.local/share/lockscope/audit.jsonl)."),
         QStringLiteral("PATH")},
        {QStringLiteral("observe-ms"),
         QStringLiteral("doctor: watch for N ms before diagnosing, so rules that need history (watchdog held too "
                        "long, waiters without holder) can fire. Default 0: one pass."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("watchdog-threshold-ms"),
         QStringLiteral("doctor: report locks kept alive by a watchdog for longer than N ms (default 600000)."),
         QStringLiteral("N"), QStringLiteral("600000")},
        {QStringLiteral("waiter-threshold-ms"),
         QStringLiteral("doctor: report waiters with no holder after N ms (default 30000, one lease)."),
         QStringLiteral("N"), QStringLiteral("30000")},
        {QStringLiteral("silent-holder-threshold-ms"),
         QStringLiteral("doctor: report waiters behind a holder that renews nothing and does nothing after N ms "
                        "(default 60000)."),
         QStringLiteral("N"), QStringLiteral("60000")},
        {QStringLiteral("replication-threshold-ms"),
         QStringLiteral("doctor, serve: a lock no replica has acknowledged (not_replicated) is critical after N ms "
                        "(default 0: a third of its lease)."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("demo"),
         QStringLiteral("Start the embedded demo (a private redis-server with simulated Redisson clients) and use it "
                        "instead of --url.")},
        {QStringLiteral("holder"),
         QStringLiteral(
             "list, show, watch, doctor: only locks that client id ID holds or waits for (a whole client id, "
             "its first characters, <clientId>:<threadId>, or a thread id)."),
         QStringLiteral("ID")},
        {QStringLiteral("wide"),
         QStringLiteral("list: do not fit the table to the terminal (full client ids, every holder, and the "
                        "HOST and NAME of each holder's client).")},
        {QStringLiteral("client-list-budget"),
         QStringLiteral("watch, serve, record, doctor, show, list, clients: at most N CLIENT LIST calls a second per "
                        "server to learn who the holders are from their lock events (default 4; 0: do not "
                        "correlate, only --identify-ms's MONITOR sample identifies)."),
         QStringLiteral("N")},
        {QStringLiteral("identify-ms"),
         QStringLiteral("show, list, clients: find out who the holders are: watch their lock scripts with a "
                        "MONITOR sample (needs +monitor) for at most N ms, ended as soon as every holder is "
                        "identified; without +monitor, match lock events with CLIENT LIST for N ms instead. Only "
                        "the lock scripts' client ids and addresses are kept, never another command's arguments."),
         QStringLiteral("N")},
    };
}

QList<QCommandLineOption> CliOptions::allOptions()
{
    QList<QCommandLineOption> all = commandOptions();
    all << RedLockCommand::options() << WorkshopCommand::options() << ServeCommand::options();
    return all;
}

QString CliOptions::rangeError(const QCommandLineParser &parser)
{
    // Every number in range before anything is sent: a TTL of 0 or less would delete the lock, a negative
    // duration would never end, a timer takes at most 2^31-1 ms.
    constexpr qint64 kAny = std::numeric_limits<qint64>::max();
    constexpr qint64 kTimer = std::numeric_limits<int>::max();
    struct Range {
        const char *name;
        qint64 min;
        qint64 max;
        const char *why;
    };
    for (const Range &r :
         {Range{"poll-budget", 1, kAny, ""}, Range{"lease-ms", 0, kAny, " (0 = watchdog)"},
          Range{"hold-ms", 0, kTimer, ""}, Range{"wait-ms", -1, kAny, " (-1 = forever)"},
          Range{"thread-id", 0, kAny, ""}, Range{"duration-ms", 0, kTimer, ""}, Range{"observe-ms", 0, kTimer, ""},
          Range{"identify-ms", 1, kTimer, ""}, Range{"client-list-budget", 0, 1000, ""},
          Range{"watchdog-threshold-ms", 0, kAny, ""}, Range{"waiter-threshold-ms", 0, kAny, ""},
          Range{"silent-holder-threshold-ms", 0, kAny, ""}, Range{"replication-threshold-ms", 0, kAny, ""},
          Range{"ttl-ms", 1, kAny,
                ": a TTL of 0 or less would delete the lock without waking its "
                "waiters; force-unlock does that properly"}}) {
        const QString opt = QString::fromLatin1(r.name);
        if (parser.isSet(opt)) {
            bool ok = false;
            const qint64 v = parser.value(opt).toLongLong(&ok);
            if (!ok)
                return QStringLiteral("--%1 needs a whole number, not '%2'").arg(opt, parser.value(opt));
            if (v < r.min || v > r.max)
                return QStringLiteral("--%1 must be %2, not %3%4")
                    .arg(opt, r.max == kAny ? QStringLiteral("at least %1").arg(r.min)
                                            : QStringLiteral("between %1 and %2").arg(r.min).arg(r.max))
                    .arg(v)
                    .arg(QString::fromLatin1(r.why));
        }
    }
    return QString();
}

QString CliOptions::didYouMean(const QString &given, const QStringList &candidates, const QString &prefix)
{
    QString best;
    int bestDistance = std::max<int>(2, int(given.size()) / 3) + 1;
    for (const QString &c : candidates) {
        const int d = c.startsWith(given) && given.size() >= 3 ? 1 : editDistance(given, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best.isEmpty() ? QString() : QStringLiteral(" (did you mean '%1%2'?)").arg(prefix, best);
}

QString CliOptions::parseErrorText(const QCommandLineParser &parser)
{
    const QList<QCommandLineOption> options = allOptions();
    const QStringList unknown = parser.unknownOptionNames();
    if (unknown.isEmpty())
        return parser.errorText();
    QStringList names{QStringLiteral("help"), QStringLiteral("version")};
    for (const auto &o : ConnectionOptions().options())
        names << o.names();
    for (const auto &o : options)
        names << o.names();
    QStringList parts;
    for (const QString &u : unknown)
        parts << QStringLiteral("unknown option '%1%2'%3")
                     .arg(u.size() == 1 ? QStringLiteral("-") : QStringLiteral("--"), u,
                          didYouMean(u, names, QStringLiteral("--")));
    return parts.join(QStringLiteral("; "));
}

QString CliOptions::withProgramName(QString help)
{
    const qsizetype eol = help.indexOf(QLatin1Char('\n'));
    const QString first = help.left(eol);
    const QString argv0 = QCoreApplication::arguments().value(0);
    if (first.startsWith(QLatin1String("Usage: ")) && !argv0.isEmpty() && first.mid(7).startsWith(argv0))
        help.replace(7, argv0.size(), QStringLiteral("lockscope-cli"));
    return help;
}

} // namespace lockscope
