#include "clioptions.h"

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

// Command-line conventions, so a mistake is explained before anything is sent: per-command help, "did you mean",
// options that do not apply refused, Usage with the program name. Parsing itself stays QCommandLineParser's.
struct CommandHelp {
    const char *name;
    const char *synopsis; ///< after "lockscope-cli [options] "
    const char *summary;
};

const CommandHelp kCommands[] = {
    {"list", "list [--pattern GLOB] [--holder ID] [--json] [--wide] [--identify-ms N]",
     "Every lock: holders, hold counts, TTL, waiters. The table fits the terminal (COLUMNS); --wide shows all, "
     "with the HOST and NAME of each holder's client when --identify-ms found them."},
    {"show", "show NAME [--holder ID] [--json] [--identify-ms N]",
     "One lock in detail, with what is known of each holder's and waiter's client (connections, host, client "
     "name, connected or not)."},
    {"clients", "clients [--pattern GLOB] [--json] [--identify-ms N]",
     "Every Redisson client id holding or waiting for a lock: its connections, host and client name, whether it "
     "is connected, and its locks."},
    {"watch", "watch [--pattern GLOB] [--holder ID] [--json] [--duration-ms N]",
     "Events as they happen (acquired, released, ...), in a cluster also failovers and slot moves. Exit 2 when "
     "the server was never reached or is not reachable when --duration-ms ends."},
    {"acquire",
     "acquire NAME [--kind lock|fair|read|write|fenced] [--lease-ms N] [--hold-ms N] [--wait-ms N] [--thread-id N]",
     "Take the lock as LockScope's Redisson client, with the client of its kind; release after --hold-ms or Ctrl-C."},
    {"force-unlock", "force-unlock NAME [--yes]", "Delete the lock and wake its waiters."},
    {"doctor",
     "doctor [--pattern GLOB] [--holder ID] [--json] [--observe-ms N] [--watchdog-threshold-ms N] "
     "[--waiter-threshold-ms N] [--silent-holder-threshold-ms N] [--replication-threshold-ms N]",
     "Find stuck locks, dead waiters and readers, deadlocks. Exit 4 when a problem of severity warning or worse "
     "is found."},
    {"set-ttl", "set-ttl NAME --ttl-ms N [--yes]", "Repair: give a lock without TTL one (N >= 1)."},
    {"remove-waiter", "remove-waiter NAME FIELD [--wait-ms N] [--yes]", "Repair: drop a stale fair-queue waiter."},
    {"remove-reader", "remove-reader NAME FIELD [--yes]", "Repair: drop a dead reader of a read-write lock."},
    {"wake", "wake NAME [--yes]", "Repair: wake the waiters of a free lock on their kind's channel."},
    {"record", "record --out FILE [--pattern GLOB] [--duration-ms N]",
     "Record what is seen (JSON lines; .gz compresses)."},
    {"export", "export RECORDING --csv [--out-dir DIR]", "Events and hold intervals of a recording as CSV files."},
    {"redlock",
     "redlock show|acquire NAME --servers URL1,URL2,... [--json] [--wait-ms N] [--lease-ms N] [--hold-ms N] [--multi]",
     "RedLock view (holder and TTL per server, quorum verdict), or take a RedLock (MultiLock with --multi), hold, "
     "release."},
    {"workshop", "workshop list | workshop run NAME [--json] [--scenario-file FILE] [--pace-ms N]",
     "Teaching scenarios, step by step, on a private redis-server."},
    {"serve",
     "serve [--listen HOST:PORT] [--web-config FILE] [--group REGEX=NAME]... [--max-groups N] "
     "[--max-named-findings N] [--pattern GLOB] [--replication-threshold-ms N] [--targets FILE "
     "[--password-file FILE]]",
     "Prometheus exporter: /metrics (lock groups, events, doctor findings), /healthz and / on --listen "
     "(default 127.0.0.1:9464). Read-only: it never writes to Redis. Runs until SIGINT / SIGTERM."},
};

const CommandHelp *commandHelp(const QString &name)
{
    for (const CommandHelp &c : kCommands)
        if (name == QLatin1String(c.name))
            return &c;
    return nullptr;
}

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

QString CliOptions::description()
{
    return QStringLiteral(
        "See and act on Redisson locks in Redis.\n\n"
        "Commands:\n"
        "  list [--pattern GLOB] [--json]     every lock: holders, hold counts, TTL, waiters\n"
        "  show NAME [--json] [--identify-ms N]  one lock in detail, who its holders are\n"
        "  clients [--json] [--identify-ms N] every client id holding or waiting: host, connections, locks\n"
        "  watch [--pattern GLOB] [--json]    events as they happen (acquired, released, ...),\n"
        "                                     in a cluster also failovers and slot moves\n"
        "  acquire NAME [--kind lock|fair|read|write|fenced] [--lease-ms N] [--hold-ms N] [--wait-ms N]\n"
        "               [--thread-id N]       take the lock as LockScope's Redisson client, with the\n"
        "                                     client of its kind; release after --hold-ms or Ctrl-C\n"
        "  force-unlock NAME [--yes]          delete the lock and wake its waiters\n"
        "  doctor [--json] [--observe-ms N]   find stuck locks, dead waiters and readers, deadlocks\n"
        "  set-ttl NAME --ttl-ms N [--yes]    repair: give a lock without TTL one\n"
        "  remove-waiter NAME FIELD [--wait-ms N] [--yes]   repair: drop a stale fair-queue waiter\n"
        "  remove-reader NAME FIELD [--yes]   repair: drop a dead reader of a read-write lock\n"
        "  wake NAME [--yes]                  repair: wake the waiters of a free lock on their kind's channel\n"
        "  record --out FILE [--duration-ms N]  record what is seen (JSON lines; .gz compresses)\n"
        "  export RECORDING --csv [--out-dir DIR]  events and hold intervals as CSV files\n"
        "  redlock show NAME --servers URL1,URL2,... [--json]\n"
        "                                     RedLock view: holder and TTL per server, quorum verdict\n"
        "  redlock acquire NAME --servers URL1,URL2,... [--wait-ms N] [--lease-ms N] [--hold-ms N] [--multi]\n"
        "                                     take a RedLock (MultiLock with --multi), hold, release\n"
        "  workshop list | workshop run NAME [--json] [--scenario-file FILE] [--pace-ms N]\n"
        "                                     teaching scenarios, step by step, on a private redis-server\n"
        "  serve [--listen HOST:PORT] [--web-config FILE] [--group REGEX=NAME]... [--max-groups N]\n"
        "                                     Prometheus exporter of the locks (read-only), /metrics\n"
        "Every write is checked against the state you confirmed and recorded in the audit log.\n"
        "'lockscope-cli COMMAND --help' shows a command's options. Without --url, LOCKSCOPE_URL names the server.\n\n"
        "Exit codes: 0 ok, 1 usage, 2 connection/server error, 3 refused (read-only, not\n"
        "confirmed, lock absent, not acquired, lock changed since confirmed, refused by the ACL),\n"
        "4 doctor found a problem of severity warning or worse.");
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
        {QStringLiteral("kind"), LockKinds::kindHelp(), QStringLiteral("KIND")},
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

bool CliOptions::isCommand(const QString &name)
{
    return commandHelp(name) != nullptr;
}

QStringList CliOptions::commandNames()
{
    QStringList names;
    for (const CommandHelp &c : kCommands)
        names << QString::fromLatin1(c.name);
    return names;
}

QStringList CliOptions::optionCommands(const QString &option)
{
    static const QHash<QString, QStringList> only{
        {QStringLiteral("pattern"),
         {QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("doctor"), QStringLiteral("record"),
          QStringLiteral("serve"), QStringLiteral("clients")}},
        {QStringLiteral("identify-ms"), {QStringLiteral("list"), QStringLiteral("show"), QStringLiteral("clients")}},
        {QStringLiteral("client-list-budget"),
         {QStringLiteral("watch"), QStringLiteral("serve"), QStringLiteral("record"), QStringLiteral("doctor"),
          QStringLiteral("show"), QStringLiteral("list"), QStringLiteral("clients")}},
        {QStringLiteral("holder"),
         {QStringLiteral("list"), QStringLiteral("show"), QStringLiteral("watch"), QStringLiteral("doctor")}},
        {QStringLiteral("wide"), {QStringLiteral("list")}},
        {QStringLiteral("json"),
         {QStringLiteral("list"), QStringLiteral("show"), QStringLiteral("clients"), QStringLiteral("watch"),
          QStringLiteral("doctor"), QStringLiteral("redlock"), QStringLiteral("workshop")}},
        {QStringLiteral("lease-ms"), {QStringLiteral("acquire"), QStringLiteral("redlock")}},
        {QStringLiteral("hold-ms"), {QStringLiteral("acquire"), QStringLiteral("redlock")}},
        {QStringLiteral("wait-ms"),
         {QStringLiteral("acquire"), QStringLiteral("remove-waiter"), QStringLiteral("redlock")}},
        {QStringLiteral("thread-id"), {QStringLiteral("acquire"), QStringLiteral("redlock")}},
        {QStringLiteral("kind"), {QStringLiteral("acquire")}},
        {QStringLiteral("yes"),
         {QStringLiteral("force-unlock"), QStringLiteral("set-ttl"), QStringLiteral("remove-waiter"),
          QStringLiteral("remove-reader"), QStringLiteral("wake")}},
        {QStringLiteral("duration-ms"), {QStringLiteral("watch"), QStringLiteral("record")}},
        {QStringLiteral("ttl-ms"), {QStringLiteral("set-ttl")}},
        {QStringLiteral("out"), {QStringLiteral("record")}},
        {QStringLiteral("csv"), {QStringLiteral("export")}},
        {QStringLiteral("out-dir"), {QStringLiteral("export")}},
        {QStringLiteral("observe-ms"), {QStringLiteral("doctor")}},
        {QStringLiteral("watchdog-threshold-ms"), {QStringLiteral("doctor")}},
        {QStringLiteral("waiter-threshold-ms"), {QStringLiteral("doctor")}},
        {QStringLiteral("silent-holder-threshold-ms"), {QStringLiteral("doctor")}},
        {QStringLiteral("replication-threshold-ms"), {QStringLiteral("doctor"), QStringLiteral("serve")}},
        {QStringLiteral("servers"), {QStringLiteral("redlock")}},
        {QStringLiteral("multi"), {QStringLiteral("redlock")}},
        {QStringLiteral("scenario-file"), {QStringLiteral("workshop")}},
        {QStringLiteral("listen"), {QStringLiteral("serve")}},
        {QStringLiteral("web-config"), {QStringLiteral("serve")}},
        {QStringLiteral("targets"),
         {QStringLiteral("serve"), QStringLiteral("list"), QStringLiteral("doctor"), QStringLiteral("clients")}},
        {QStringLiteral("password-file"),
         {QStringLiteral("serve"), QStringLiteral("list"), QStringLiteral("doctor"), QStringLiteral("clients")}},
        {QStringLiteral("group"), {QStringLiteral("serve")}},
        {QStringLiteral("max-groups"), {QStringLiteral("serve")}},
        {QStringLiteral("max-named-findings"), {QStringLiteral("serve")}},
        {QStringLiteral("pace-ms"), {QStringLiteral("workshop")}},
    };
    return only.value(option);
}

QStringList CliOptions::positionalArguments(const QString &command)
{
    // Command -> its positional arguments after the command (lock name, holder field).
    static const QHash<QString, QStringList> commandArgs{
        {QStringLiteral("list"), {}},
        {QStringLiteral("clients"), {}},
        {QStringLiteral("watch"), {}},
        {QStringLiteral("doctor"), {}},
        {QStringLiteral("record"), {}},
        {QStringLiteral("serve"), {}},
        {QStringLiteral("export"), {QStringLiteral("recording file")}},
        {QStringLiteral("show"), {QStringLiteral("lock name")}},
        {QStringLiteral("acquire"), {QStringLiteral("lock name")}},
        {QStringLiteral("force-unlock"), {QStringLiteral("lock name")}},
        {QStringLiteral("set-ttl"), {QStringLiteral("lock name")}},
        {QStringLiteral("wake"), {QStringLiteral("lock name")}},
        {QStringLiteral("remove-waiter"),
         {QStringLiteral("lock name"), QStringLiteral("waiter field <clientId>:<threadId>")}},
        {QStringLiteral("remove-reader"),
         {QStringLiteral("lock name"), QStringLiteral("reader field <clientId>:<threadId>")}},
        {QStringLiteral("redlock"), {QStringLiteral("redlock command (show or acquire)"), QStringLiteral("lock name")}},
    };
    return commandArgs.value(command);
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
    QStringList names{QStringLiteral("help"),
                      QStringLiteral("version"),
                      QStringLiteral("url"),
                      QStringLiteral("tls-ca"),
                      QStringLiteral("tls-cert"),
                      QStringLiteral("tls-key"),
                      QStringLiteral("tls-server-name"),
                      QStringLiteral("tls-insecure"),
                      QStringLiteral("user"),
                      QStringLiteral("ask-password")};
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

QString CliOptions::commandHelpText(const QString &command)
{
    const QList<QCommandLineOption> options = allOptions();
    const CommandHelp *c = commandHelp(command);
    QCommandLineParser sub;
    sub.setApplicationDescription(QString::fromLatin1(c->summary) +
                                  QStringLiteral("\n\nConnection options (--url or LOCKSCOPE_URL, --tls-*, --user, "
                                                 "--ask-password) and --read-only, --audit-log, --poll, --cluster, "
                                                 "--demo: see 'lockscope-cli --help'."));
    sub.addHelpOption();
    for (const auto &o : options)
        if (optionCommands(o.names().first()).contains(command))
            sub.addOption(o);
    QString text = sub.helpText();
    const qsizetype eol = text.indexOf(QLatin1Char('\n'));
    return QStringLiteral("Usage: lockscope-cli [options] %1").arg(QString::fromLatin1(c->synopsis)) + text.mid(eol);
}

} // namespace lockscope
