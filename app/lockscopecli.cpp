#include "lockscopecli.h"

#include "connectionoptions.h"
#include "redlockcommand.h"
#include "servecommand.h"
#include "workshopcommand.h"

#include "act/auditlog.h"
#include "demo/demoworkload.h"
#include "demo/redisserverprocess.h"
#include "diagnose/doctorprobe.h"
#include "diagnose/lockdoctor.h"
#include "history/historystore.h"
#include "history/recording.h"
#include "history/sessionrecorder.h"
#include "lock/lockclient.h"
#include "protocol/displaytext.h"
#include "protocol/lockfilter.h"
#include "protocol/locknames.h"
#include "redis/clusterrouter.h"
#include "redis/redisbytes.h"
#include "redis/redisconnection.h"
#include "redis/redisreply.h"
#include "session/locksession.h"
#include "watch/clusterlockmonitor.h"
#include "watch/lockmonitor.h"
#include "watch/snapshotreader.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSocketNotifier>
#include <QTimer>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <memory>
#include <sys/ioctl.h>
#include <thread>
#include <unistd.h>

namespace lockscope
{

// SIGINT / SIGTERM: one mechanism for every command. The handler notes the signal and writes its
// number to a self-pipe; a QSocketNotifier on the other end runs LockScopeCli::onInterrupted() in
// the event loop. While a blocking y/N prompt waits (nothing sent yet), the handler exits at once.
static volatile std::sig_atomic_t g_interrupted = 0; ///< the signal number, 0 = none
static volatile std::sig_atomic_t g_exitAtOnce = 0;  ///< a blocking prompt is waiting: nothing was sent
static int g_signalPipe[2] = {-1, -1};
static void onSignal(int sig)
{
    g_interrupted = sig;
    if (g_exitAtOnce) {
        const char nl = '\n';
        (void)!::write(STDERR_FILENO, &nl, 1);
        ::_exit(128 + sig);
    }
    const char c = char(sig);
    (void)!::write(g_signalPipe[1], &c, 1);
}

namespace
{

// Command-line conventions (issue 15.6, 15.8): per-command help, "did you mean", options that do
// not apply refused, Usage with the program name. Parsing itself stays QCommandLineParser's.
struct CommandHelp {
    const char *name;
    const char *synopsis; ///< after "lockscope-cli [options] "
    const char *summary;
};

const CommandHelp kCommands[] = {
    {"list", "list [--pattern GLOB] [--holder ID] [--json] [--wide]",
     "Every lock: holders, hold counts, TTL, waiters. The table fits the terminal (COLUMNS); --wide shows all."},
    {"show", "show NAME [--holder ID] [--json]", "One lock in detail."},
    {"watch", "watch [--pattern GLOB] [--holder ID] [--json] [--duration-ms N]",
     "Events as they happen (acquired, released, ...), in a cluster also failovers and slot moves. Exit 2 when "
     "the server was never reached or is not reachable when --duration-ms ends."},
    {"acquire",
     "acquire NAME [--kind lock|fair|read|write|fenced] [--lease-ms N] [--hold-ms N] [--wait-ms N] [--thread-id N]",
     "Take the lock as LockScope's Redisson client, with the client of its kind; release after --hold-ms or Ctrl-C."},
    {"force-unlock", "force-unlock NAME [--yes]", "Delete the lock and wake its waiters."},
    {"doctor",
     "doctor [--pattern GLOB] [--holder ID] [--json] [--observe-ms N] [--watchdog-threshold-ms N] "
     "[--waiter-threshold-ms N]",
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
     "[--max-named-findings N] [--pattern GLOB]",
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

QStringList commandNames()
{
    QStringList names;
    for (const CommandHelp &c : kCommands)
        names << QString::fromLatin1(c.name);
    return names;
}

/** The commands an option applies to; empty = every command (connection and general options). */
QStringList optionCommands(const QString &option)
{
    static const QHash<QString, QStringList> only{
        {QStringLiteral("pattern"),
         {QStringLiteral("list"), QStringLiteral("watch"), QStringLiteral("doctor"), QStringLiteral("record"),
          QStringLiteral("serve")}},
        {QStringLiteral("holder"),
         {QStringLiteral("list"), QStringLiteral("show"), QStringLiteral("watch"), QStringLiteral("doctor")}},
        {QStringLiteral("wide"), {QStringLiteral("list")}},
        {QStringLiteral("json"),
         {QStringLiteral("list"), QStringLiteral("show"), QStringLiteral("watch"), QStringLiteral("doctor"),
          QStringLiteral("redlock"), QStringLiteral("workshop")}},
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
        {QStringLiteral("servers"), {QStringLiteral("redlock")}},
        {QStringLiteral("multi"), {QStringLiteral("redlock")}},
        {QStringLiteral("scenario-file"), {QStringLiteral("workshop")}},
        {QStringLiteral("listen"), {QStringLiteral("serve")}},
        {QStringLiteral("web-config"), {QStringLiteral("serve")}},
        {QStringLiteral("group"), {QStringLiteral("serve")}},
        {QStringLiteral("max-groups"), {QStringLiteral("serve")}},
        {QStringLiteral("max-named-findings"), {QStringLiteral("serve")}},
        {QStringLiteral("pace-ms"), {QStringLiteral("workshop")}},
    };
    return only.value(option);
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

/** " (did you mean 'list'?)" for the nearest candidate within a few edits, else "". */
QString didYouMean(const QString &given, const QStringList &candidates, const QString &prefix)
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

/** QCommandLineParser's error, with "did you mean" for an unknown option. */
QString parseErrorText(const QCommandLineParser &parser, const QList<QCommandLineOption> &options)
{
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

/** QCommandLineParser's help with "Usage: lockscope-cli" instead of the path the program was run by. */
QString withProgramName(QString help)
{
    const qsizetype eol = help.indexOf(QLatin1Char('\n'));
    const QString first = help.left(eol);
    const QString argv0 = QCoreApplication::arguments().value(0);
    if (first.startsWith(QLatin1String("Usage: ")) && !argv0.isEmpty() && first.mid(7).startsWith(argv0))
        help.replace(7, argv0.size(), QStringLiteral("lockscope-cli"));
    return help;
}

/** `lockscope-cli COMMAND --help`: its synopsis, what it does and the options that belong to it. */
QString commandHelpText(const QString &command, const QList<QCommandLineOption> &options)
{
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

} // namespace

LockScopeCli::LockScopeCli(QObject *parent) : QObject(parent), m_out(stdout), m_err(stderr) {}

LockScopeCli::~LockScopeCli() = default;

bool LockScopeCli::start(const QStringList &arguments, int *exitCode)
{
    m_parser.setApplicationDescription(QStringLiteral(
        "See and act on Redisson locks in Redis.\n\n"
        "Commands:\n"
        "  list [--pattern GLOB] [--json]     every lock: holders, hold counts, TTL, waiters\n"
        "  show NAME [--json]                 one lock in detail\n"
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
        "4 doctor found a problem of severity warning or worse."));
    m_parser.addHelpOption();
    m_parser.addVersionOption();
    const ConnectionOptions connection(
        QStringLiteral("redis://127.0.0.1:6379")); // --url, --tls-*, --user, --ask-password
    connection.addTo(m_parser);
    const QList<QCommandLineOption> commandOptions{
        {QStringLiteral("read-only"), QStringLiteral("Refuse every write (acquire, force-unlock, config).")},
        {QStringLiteral("pattern"), QStringLiteral("Only locks whose name matches this Redis glob."),
         QStringLiteral("GLOB"), QStringLiteral("*")},
        {QStringLiteral("json"), QStringLiteral("One JSON object per line (field names: see README).")},
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
        {QStringLiteral("kind"),
         QStringLiteral("acquire: the lock kind to take: lock, fair, read, write or fenced. Default: the kind the "
                        "lock's data says (lock for a free name; a read-write lock needs read or write). A kind "
                        "that contradicts the data is refused (exit 3)."),
         QStringLiteral("KIND")},
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
        {QStringLiteral("demo"),
         QStringLiteral("Start the embedded demo (a private redis-server with simulated Redisson clients) and use it "
                        "instead of --url.")},
        {QStringLiteral("holder"),
         QStringLiteral(
             "list, show, watch, doctor: only locks that client id ID holds or waits for (a whole client id, "
             "its first characters, <clientId>:<threadId>, or a thread id)."),
         QStringLiteral("ID")},
        {QStringLiteral("wide"),
         QStringLiteral("list: do not fit the table to the terminal (full client ids, every holder).")},
    };
    m_parser.addOptions(commandOptions);
    m_parser.addOptions(RedLockCommand::options());  // --servers, --multi
    m_parser.addOptions(WorkshopCommand::options()); // --scenario-file, --pace-ms
    m_parser.addOptions(ServeCommand::options());    // --listen, --web-config, --group, --max-groups, ...
    m_parser.addPositionalArgument(QStringLiteral("command"),
                                   QStringLiteral("list, show, watch, acquire or force-unlock"));
    m_parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("lock name (show, acquire, force-unlock)"),
                                   QStringLiteral("[NAME]"));

    QList<QCommandLineOption> allOptions = commandOptions;
    allOptions << RedLockCommand::options() << WorkshopCommand::options() << ServeCommand::options();
    if (!m_parser.parse(arguments)) {
        m_err << "lockscope-cli: " << parseErrorText(m_parser, allOptions)
              << "\nRun 'lockscope-cli --help' for usage.\n";
        m_err.flush();
        *exitCode = Usage;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        const QString command = m_parser.positionalArguments().value(0);
        m_out << (commandHelp(command) ? commandHelpText(command, allOptions) : withProgramName(m_parser.helpText()));
        m_out.flush();
        *exitCode = Ok;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("version"))) {
        m_out << QCoreApplication::applicationName() << ' ' << QCoreApplication::applicationVersion() << '\n';
        m_out.flush();
        *exitCode = Ok;
        return false;
    }
    const QStringList pos = m_parser.positionalArguments();
    auto usage = [&](const QString &msg) {
        m_err << "lockscope-cli: " << msg << "\nRun 'lockscope-cli "
              << (commandHelp(pos.value(0)) ? pos.value(0) + QLatin1Char(' ') : QString()) << "--help' for usage.\n";
        m_err.flush();
        *exitCode = Usage;
        return false;
    };
    if (pos.isEmpty())
        return usage(QStringLiteral("missing command (list, show, watch, acquire, force-unlock, doctor, set-ttl, "
                                    "remove-waiter, remove-reader, wake, redlock)"));
    m_command = pos.first();
    if (!commandHelp(m_command))
        return usage(
            QStringLiteral("unknown command '%1'%2").arg(m_command, didYouMean(m_command, commandNames(), QString())));
    for (const QString &option : m_parser.optionNames()) {
        const QStringList only = optionCommands(option);
        if (!only.isEmpty() && !only.contains(m_command))
            return usage(QStringLiteral("--%1 does not apply to '%2' (it is for %3)")
                             .arg(option, m_command, only.join(QStringLiteral(", "))));
    }
    if (m_command == QLatin1String("workshop")) {
        // Workshop scenarios on their own private redis-server: no --url, no LockSession.
        auto *workshop = new WorkshopCommand(m_parser, this);
        connect(workshop, &WorkshopCommand::finished, this, &LockScopeCli::finish);
        return workshop->start(pos.mid(1), exitCode);
    }
    // Command -> its positional arguments after the command (lock name, holder field).
    static const QHash<QString, QStringList> commandArgs{
        {QStringLiteral("list"), {}},
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
    const QStringList wanted = commandArgs.value(m_command);
    if (pos.size() - 1 < wanted.size())
        return usage(QStringLiteral("'%1' needs a %2").arg(m_command, wanted.at(pos.size() - 1)));
    if (pos.size() - 1 > wanted.size())
        return usage(QStringLiteral("unexpected argument '%1'").arg(pos.last()));
    // Names and fields as LockScope displays them: `lock:\xff` is a key whose bytes are not UTF-8
    // (issue 13.12, RedisBytes::fromDisplayed).
    if (wanted.size() >= 1) {
        m_nameTyped = pos.at(1);
        m_name = wanted.first() == QLatin1String("lock name") ? RedisBytes::fromDisplayed(pos.at(1)) : pos.at(1);
    }
    if (wanted.size() >= 2)
        m_field = RedisBytes::fromDisplayed(pos.at(2));
    if (m_command == QLatin1String("set-ttl") && !m_parser.isSet(QStringLiteral("ttl-ms")))
        return usage(QStringLiteral("'set-ttl' needs --ttl-ms N"));
    if (m_command == QLatin1String("record") && !m_parser.isSet(QStringLiteral("out")))
        return usage(QStringLiteral("'record' needs --out FILE"));
    if (m_command == QLatin1String("export")) {
        if (!m_parser.isSet(QStringLiteral("csv")))
            return usage(QStringLiteral("'export' needs --csv (the only format so far)"));
        *exitCode = runExport();
        return false; // offline: no Redis needed
    }
    if (m_parser.isSet(QStringLiteral("kind"))) {
        const auto kind = AcquirePlan::parseKind(m_parser.value(QStringLiteral("kind")));
        if (!kind || *kind == AcquireKind::Auto)
            return usage(QStringLiteral("--kind needs lock, fair, read, write or fenced, not '%1'")
                             .arg(m_parser.value(QStringLiteral("kind"))));
    }
    m_json = m_parser.isSet(QStringLiteral("json"));
    // Every number in range (issue 15.6): a TTL of 0 or less would delete the lock, a negative
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
          Range{"watchdog-threshold-ms", 0, kAny, ""}, Range{"waiter-threshold-ms", 0, kAny, ""},
          Range{"ttl-ms", 1, kAny,
                ": a TTL of 0 or less would delete the lock without waking its "
                "waiters; force-unlock does that properly"}}) {
        const QString opt = QString::fromLatin1(r.name);
        if (m_parser.isSet(opt)) {
            bool ok = false;
            const qint64 v = m_parser.value(opt).toLongLong(&ok);
            if (!ok)
                return usage(QStringLiteral("--%1 needs a whole number, not '%2'").arg(opt, m_parser.value(opt)));
            if (v < r.min || v > r.max)
                return usage(QStringLiteral("--%1 must be %2, not %3%4")
                                 .arg(opt, r.max == kAny ? QStringLiteral("at least %1").arg(r.min)
                                                         : QStringLiteral("between %1 and %2").arg(r.min).arg(r.max))
                                 .arg(v)
                                 .arg(QString::fromLatin1(r.why)));
        }
    }
    if (m_parser.isSet(QStringLiteral("holder")) && m_parser.value(QStringLiteral("holder")).trimmed().isEmpty())
        return usage(QStringLiteral("--holder needs a client id, <clientId>:<threadId> or thread id"));

    if (m_command == QLatin1String("redlock")) {
        // RedLock / MultiLock over independent servers (--servers): its own connections, no LockSession.
        // It polls the flag while holding and releases first.
        auto *redlock = new RedLockCommand(
            m_parser, connection, [] { return g_interrupted != 0; }, this);
        connect(redlock, &RedLockCommand::finished, this, &LockScopeCli::finish);
        installSignalHandlers();
        m_onInterrupt = [] {}; // RedLockCommand releases and finishes by itself
        return redlock->start(m_name, m_field, exitCode);
    }
    installSignalHandlers();

    QString urlError;
    LockSession::Options options;
    if (m_parser.isSet(QStringLiteral("demo"))) {
        m_demoServer = new RedisServerProcess(this);
        QString error;
        if (!m_demoServer->start(10000, &error)) {
            m_err << "lockscope-cli: cannot start the demo: " << error << '\n';
            m_err.flush();
            *exitCode = ServerError;
            return false;
        }
        m_err << "lockscope-cli: demo redis-server on " << m_demoServer->url() << '\n';
        m_err.flush();
        options.endpoint = m_demoServer->endpoint();
        auto *workload = new DemoWorkload(options.endpoint, this);
        workload->start();
    } else {
        options.endpoint = connection.endpoint(m_parser, &urlError);
    }
    if (!options.endpoint.isValid())
        return usage(urlError);
    if (options.endpoint.isSentinel() && m_parser.isSet(QStringLiteral("cluster")))
        return usage(QStringLiteral("--cluster and a redis-sentinel:// URL exclude each other: Sentinel names one "
                                    "master, a cluster has many"));
    options.pattern = m_parser.value(QStringLiteral("pattern"));
    options.detectCluster = true;
    options.forceCluster = m_parser.isSet(QStringLiteral("cluster"));
    options.readOnly = m_parser.isSet(QStringLiteral("read-only"));
    options.forcePolling = m_parser.isSet(QStringLiteral("poll"));
    options.pollBudget = qMax(100, m_parser.value(QStringLiteral("poll-budget")).toInt());
    // One-shot commands: one discovery pass, one read per lock, then the answer (doctor's
    // history rules keep --observe-ms, which watches as the dashboard does).
    options.oneShot =
        m_command == QLatin1String("list") ||
        (m_command == QLatin1String("doctor") && m_parser.value(QStringLiteral("observe-ms")).toLongLong() <= 0);

    static const QStringList writeCommands{QStringLiteral("acquire"),       QStringLiteral("force-unlock"),
                                           QStringLiteral("set-ttl"),       QStringLiteral("remove-waiter"),
                                           QStringLiteral("remove-reader"), QStringLiteral("wake")};
    const bool writes = writeCommands.contains(m_command) || m_parser.isSet(QStringLiteral("enable-notifications"));
    options.auditLogPath = m_parser.value(QStringLiteral("audit-log"));
    if (m_command == QLatin1String("serve")) {
        // Read-only by construction: the session refuses every write, and serve asks for none.
        if (m_parser.isSet(QStringLiteral("enable-notifications")))
            return usage(
                QStringLiteral("--enable-notifications does not apply to 'serve': the exporter never writes to "
                               "Redis (turn notifications on once with 'lockscope-cli --enable-notifications "
                               "watch --duration-ms 1', or CONFIG SET notify-keyspace-events KA)"));
        options.readOnly = true;
        m_serve = new ServeCommand(m_parser, this);
        if (!m_serve->prepare(exitCode))
            return false;
    }
    if (writes && options.readOnly) {
        m_err << "lockscope-cli: refused: '" << m_command
              << "' writes to Redis and --read-only is set. Nothing was sent.\n";
        m_err.flush();
        *exitCode = Refused;
        return false;
    }
    if (writes) { // no write without its audit record: check the log before anything is sent
        QString auditError;
        if (!AuditLog(options.auditLogPath).check(&auditError)) {
            m_err << "lockscope-cli: refused: " << auditError
                  << ". Nothing was sent to Redis: every write is recorded in the audit log first (make it "
                     "writable or pass --audit-log PATH).\n";
            m_err.flush();
            *exitCode = Refused;
            return false;
        }
    }

    m_session = new LockSession(options, this);
    RedisConnection *conn = m_session->connection();
    connect(conn, &RedisConnection::ready, this, [this] { m_everReady = true; });
    connect(conn, &RedisConnection::connectionLost, this, [this](const QString &reason) {
        // The exporter keeps serving (lockscope_up 0) until Redis is back, reached once or not.
        if (m_command == QLatin1String("serve")) {
            m_err << "lockscope-cli: " << reason << " (reconnecting; lockscope_up is 0 meanwhile)\n";
            m_err.flush();
            return;
        }
        // Reconnect only to a server that was reached once: never reached is exit 2 (issue 15.6).
        if (m_everReady && (m_command == QLatin1String("watch") || m_command == QLatin1String("acquire"))) {
            m_err << "lockscope-cli: " << reason << " (reconnecting)\n";
            m_err.flush();
            return;
        }
        fail(ServerError, QStringLiteral("cannot reach Redis: %1").arg(reason));
    });
    connect(m_session, &LockSession::errorOccurred, this, [this](const QString &msg) {
        if (m_parser.isSet(QStringLiteral("enable-notifications")) && RedisReply::isPermissionError(msg)) {
            fail(Refused, msg); // CONFIG refused by the ACL
            return;
        }
        m_err << "lockscope-cli: " << msg << '\n';
        m_err.flush();
    });
    if (m_parser.isSet(QStringLiteral("progress")) || ::isatty(STDERR_FILENO)) {
        // "scanned 412k of ~1.0M keys, 83k locks" on one line, at most every 200 ms.
        auto clock = std::make_shared<QElapsedTimer>();
        connect(m_session, &LockSession::discoveryProgress, this,
                [this, clock](qint64 scanned, qint64 found, bool finished, qint64 total) {
                    if (m_finished || (!finished && clock->isValid() && clock->elapsed() < 200))
                        return;
                    clock->start();
                    m_err << "\rlockscope-cli: scanned " << DisplayText::compactCount(scanned)
                          << (total >= 0 ? QStringLiteral(" of ~%1").arg(DisplayText::compactCount(total)) : QString())
                          << " keys, " << DisplayText::compactCount(found) << " locks" << (finished ? "\n" : "   ");
                    m_err.flush();
                });
    }
    if (m_parser.isSet(QStringLiteral("enable-notifications"))) {
        m_session->open(); // CONFIG GET/SET wait for the handshake instead of failing "not connected"
        m_session->enableNotifications();
    }

    // With --demo, give the simulated clients a moment to take their locks first.
    QTimer::singleShot(m_demoServer ? 1500 : 0, this, [this] {
        auto run = [this] {
            if (m_command == QLatin1String("list"))
                runList();
            else if (m_command == QLatin1String("show"))
                runShow();
            else if (m_command == QLatin1String("watch"))
                runWatch();
            else if (m_command == QLatin1String("acquire"))
                runAcquire();
            else if (m_command == QLatin1String("doctor"))
                runDoctor();
            else if (m_command == QLatin1String("force-unlock"))
                runForceUnlock();
            else if (m_command == QLatin1String("record"))
                runRecord();
            else if (m_command == QLatin1String("serve"))
                m_serve->run(m_session);
            else
                runRepair();
        };
        // Redis Cluster: detected from the first node (INFO cluster), or forced with --cluster.
        m_session->prepare([this, run](const QString &error) {
            if (!error.isEmpty()) {
                fail(ServerError, QStringLiteral("cannot read the cluster topology: %1").arg(error));
                return;
            }
            run(); // also when INFO failed or was refused: the single-server path decides
        });
    });
    return true;
}

void LockScopeCli::installSignalHandlers()
{
    if (m_signalNotifier)
        return;
    if (g_signalPipe[0] < 0 && ::pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    m_signalNotifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, this);
    connect(m_signalNotifier, &QSocketNotifier::activated, this, [this] {
        char buf[16];
        while (::read(g_signalPipe[0], buf, sizeof buf) > 0) {
        }
        onInterrupted(int(g_interrupted));
    });
    struct sigaction sa = {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

void LockScopeCli::onInterrupted(int sig)
{
    if (m_finished || sig <= 0)
        return;
    if (m_signal == 0) {
        m_signal = sig;
        m_err << "lockscope-cli: " << (sig == SIGINT ? "interrupted" : "terminated") << '\n';
        m_err.flush();
    }
    if (m_writeSent)
        return; // a write is under way: it finishes and is audited first (see awaitAction())
    if (m_onInterrupt) {
        m_onInterrupt();
        // Whatever the command does first (release a hold) gets a second at most.
        QTimer::singleShot(1000, this, [this] {
            if (!m_writeSent)
                finish(128 + m_signal);
        });
        return;
    }
    finish(128 + sig);
}

bool LockScopeCli::connectedAtDurationEnd()
{
    RedisConnection *conn = m_session ? m_session->connection() : nullptr;
    if (!conn || conn->isReady())
        return true;
    m_durationEndedDisconnected = true;
    m_err << "lockscope-cli: --duration-ms ended while not connected to " << m_session->options().endpoint.address()
          << " (" << conn->lastError() << "): what was seen is incomplete\n";
    m_err.flush();
    return false;
}

void LockScopeCli::finish(int code)
{
    if (m_finished)
        return;
    m_finished = true;
    m_out.flush();
    if (m_command == QLatin1String("watch") && m_everReady) {
        // Issue 13.11: what the event stream could not show is said, not silently lost.
        m_err << "lockscope-cli: watch ended: " << m_watchEvents << " event(s) reported; ";
        if (m_watchCoalesced > 0)
            m_err << m_watchCoalesced << " release(s) happened between two reads and were too short to see "
                  << "(\"coalesced\" events name the locks)\n";
        else
            m_err << "no release was too short to see\n";
    }
    m_err.flush();
    emit finished(code);
}

void LockScopeCli::fail(int code, const QString &message)
{
    if (code == ServerError && RedisReply::isPermissionError(message))
        code = Refused; // an ACL refused it (NOPERM): a refusal, not a failure
    else if (code == Refused && m_session && !m_everReady)
        code = ServerError; // "not connected": the server was never reached (issue 15.6)
    m_err << "lockscope-cli: " << RedisBytes::displayed(message) << '\n';
    finish(code);
}

QString LockScopeCli::formatTtl(qint64 ttlMs)
{
    if (ttlMs == -1)
        return QStringLiteral("no expiry");
    if (ttlMs < 0)
        return QStringLiteral("-");
    return QStringLiteral("%1.%2 s").arg(ttlMs / 1000).arg((ttlMs % 1000) / 100);
}

QString LockScopeCli::formatTable(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs)
{
    return formatTable(locks, nowSteadyMs, 0);
}

int LockScopeCli::terminalColumns()
{
    bool ok = false;
    const int columns = qEnvironmentVariableIntValue("COLUMNS", &ok);
    if (ok && columns > 0)
        return columns;
    struct winsize ws = {};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

/** "b983c153-7421-469a-addb-44fb92259a1b:1" -> "b983c153…9a1b:1": the first 8 characters (what
 *  people quote) and the last 4 of a long client id, the thread id whole. */
static QString elidedField(const QString &field)
{
    const qsizetype colon = field.lastIndexOf(QLatin1Char(':'));
    const QString client = colon >= 0 ? field.left(colon) : field;
    if (client.size() <= 16)
        return field;
    return client.left(8) + QStringLiteral("…") + client.right(4) + (colon >= 0 ? field.mid(colon) : QString());
}

static QString cut(const QString &text, int width)
{
    return text.size() <= width ? text : text.left(qMax(0, width - 1)) + QStringLiteral("…");
}

QString LockScopeCli::formatTable(const QVector<LockSnapshot> &locks, qint64 nowSteadyMs, int maxColumns)
{
    const bool fit = maxColumns > 0;
    QVector<QStringList> rows;
    rows << QStringList{
        QStringLiteral("NAME"),    QStringLiteral("KIND"), QStringLiteral("HOLDER (client id:thread id)"),
        QStringLiteral("HOLDS"),   QStringLiteral("TTL"),  QStringLiteral("WAITING"),
        QStringLiteral("PROBLEMS")};
    for (const auto &s : locks) {
        QStringList holders;
        QStringList counts;
        for (const auto &h : s.holders) {
            if (fit && holders.size() == 1 && s.holders.size() > 2) {
                holders << QStringLiteral("+%1 more").arg(s.holders.size() - 1);
                counts << QStringLiteral("…");
                break;
            }
            holders << (fit ? elidedField(h.field) : h.field) +
                           (h.mode.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(h.mode));
            counts << QString::number(h.holdCount);
        }
        if (s.sampled) { // too big to read whole: say how many, list none
            holders = QStringList{s.holderSummary()};
            counts.clear();
        }
        const QString waiting = s.kind == LockKind::FairLock ? QStringLiteral("%1 queued").arg(s.queueLength)
                                                             : QStringLiteral("%1 client(s)").arg(s.subscribers);
        const QString kind =
            s.token >= 0 ? QStringLiteral("%1 (token %2)").arg(lockKindName(s.kind)).arg(s.token) : s.kindDisplay();
        QStringList problems = s.problems;
        if (fit) // the row names the lock already
            for (QString &p : problems)
                if (p.startsWith(s.name + QLatin1Char(' ')))
                    p = p.mid(s.name.size() + 1);
        if (!s.nameNote().isEmpty())
            problems.prepend(QStringLiteral("name: ") + s.nameNote());
        rows << QStringList{s.name,
                            kind,
                            holders.isEmpty() ? QStringLiteral("(free)") : holders.join(QLatin1Char(' ')),
                            counts.join(QLatin1Char(' ')),
                            formatTtl(s.remainingTtlMs(nowSteadyMs)),
                            waiting,
                            problems.join(QStringLiteral("; "))};
    }
    for (auto &r : rows) // names and fields are whatever clients wrote: no raw control characters
        for (auto &cell : r)
            cell = DisplayText::escaped(cell);
    QVector<int> widths(rows.first().size(), 0);
    for (const auto &r : rows)
        for (int i = 0; i < r.size() - 1; ++i)
            widths[i] = qMax(widths[i], int(r[i].size()));
    if (fit) {
        // Too wide: first the holder column gives way (down to 24), then the last column is cut.
        const int last = int(widths.size()) - 1;
        int fixed = 0;
        for (int i = 0; i < last; ++i)
            fixed += widths[i] + 2;
        constexpr int kMinLast = 12;
        if (fixed + kMinLast > maxColumns && widths[2] > 24) {
            widths[2] = qMax(24, widths[2] - (fixed + kMinLast - maxColumns));
            for (int r = 1; r < rows.size(); ++r)
                rows[r][2] = cut(rows[r][2], widths[2]);
            fixed = 0;
            for (int i = 0; i < last; ++i)
                fixed += widths[i] + 2;
        }
        for (auto &r : rows)
            r[last] = cut(r[last], qMax(kMinLast, maxColumns - fixed));
    }
    QString out;
    for (const auto &r : rows) {
        QString line;
        for (int i = 0; i < r.size(); ++i)
            line += i + 1 < r.size() ? r[i].leftJustified(widths[i] + 2) : r[i];
        out += line.trimmed() + QLatin1Char('\n');
    }
    return out;
}

void LockScopeCli::writeJsonLines(const QVector<const LockSnapshot *> &locks)
{
    // One QJsonDocument per line, built by Qt's writer. Redis is done by now, so the lines of each
    // block are built on two threads (each snapshot is only read), then written in order.
    constexpr int kBlock = 4096;
    auto build = [&locks](int from, int to, QByteArray *out) {
        for (int i = from; i < to; ++i) {
            out->append(QJsonDocument(locks.at(i)->toJson()).toJson(QJsonDocument::Compact));
            out->append('\n');
        }
    };
    for (int begin = 0; begin < locks.size(); begin += kBlock) {
        const int end = qMin(int(locks.size()), begin + kBlock);
        const int mid = begin + (end - begin) / 2;
        QByteArray first;
        QByteArray second;
        if (end - begin >= 64) {
            std::thread helper(build, mid, end, &second);
            build(begin, mid, &first);
            helper.join();
        } else {
            build(begin, end, &first);
        }
        std::fwrite(first.constData(), 1, size_t(first.size()), stdout);
        std::fwrite(second.constData(), 1, size_t(second.size()), stdout);
    }
    std::fflush(stdout);
}

void LockScopeCli::runList()
{
    LockWatcher *watcher = m_session->watcher();
    auto listed = [this, watcher] {
        if (m_finished)
            return;
        if (m_json) {
            // Issue 12: no copy of 200k snapshots, lines written as bytes (not through QTextStream).
            const QHash<QString, LockSnapshot> all = watcher->locks(); // shared, not copied
            const LockFilter filter = holderFilter();
            QVector<const LockSnapshot *> sorted;
            sorted.reserve(all.size());
            for (auto it = all.cbegin(); it != all.cend(); ++it)
                if (filter.isEmpty() || filter.matches(it.value()))
                    sorted << &it.value();
            std::sort(sorted.begin(), sorted.end(),
                      [](const LockSnapshot *a, const LockSnapshot *b) { return a->name < b->name; });
            m_out.flush();
            writeJsonLines(sorted);
            finish(Ok);
            return;
        }
        QVector<LockSnapshot> locks = watcher->locks().values().toVector();
        std::sort(locks.begin(), locks.end(),
                  [](const LockSnapshot &a, const LockSnapshot &b) { return a.name < b.name; });
        const qsizetype seen = locks.size();
        const LockFilter filter = holderFilter();
        if (!filter.isEmpty())
            locks.erase(std::remove_if(locks.begin(), locks.end(),
                                       [&filter](const LockSnapshot &s) { return !filter.matches(s); }),
                        locks.end());
        if (!filter.isEmpty())
            m_err << "lockscope-cli: " << locks.size() << " of " << seen << " locks match --holder "
                  << DisplayText::escaped(filter.holderText()) << '\n';
        m_out << formatTable(locks, LockSnapshot::steadyNowMs(),
                             m_parser.isSet(QStringLiteral("wide")) ? 0 : terminalColumns());
        m_out << locks.size() << " lock(s) on " << m_session->options().endpoint.address()
              << (watcher->serverModes().size() > 1
                      ? QStringLiteral(" and the other masters of its cluster (%1 in all)")
                            .arg(watcher->serverModes().size())
                      : QString())
              << '\n';
        finish(Ok);
    };
    connect(watcher, &LockWatcher::idle, this, listed);
    connect(watcher, &LockWatcher::errorOccurred, this, [this](const QString &msg) { fail(ServerError, msg); });
    m_session->start();
}

void LockScopeCli::readOne(const QString &name, std::function<void(const LockSnapshot &)> then)
{
    auto *reader = new SnapshotReader(m_session->connectionFor(name), this);
    reader->read({name}, this, [this, reader, name, then](const QVector<LockSnapshot> &snaps, const QString &error) {
        reader->deleteLater();
        if (!error.isEmpty()) {
            fail(ServerError, QStringLiteral("reading %1 failed: %2").arg(name, error));
            return;
        }
        if (!snaps.isEmpty() && snaps.first().companionsOfTwin()) {
            const LockSnapshot &s = snaps.first();
            fail(Refused, QStringLiteral("no lock named '%1': the keys Redisson derives for it (%2, %3) belong to lock "
                                         "'%4', whose hash exists (protocol §14.4)")
                              .arg(name, LockNames::fairQueueKey(name), LockNames::unlockChannel(name), s.twinName));
            return;
        }
        if ((snaps.isEmpty() || !snaps.first().exists) && name == m_name && m_nameTyped != m_name) {
            // `lock:\xff` typed, but no key with that byte: the name may hold those characters
            // literally (RedisBytes::fromDisplayed is a guess for text with backslashes).
            m_name = m_nameTyped;
            readOne(m_name, then);
            return;
        }
        if (snaps.isEmpty() || !snaps.first().isLock) {
            const bool exists = !snaps.isEmpty() && snaps.first().exists;
            fail(Refused, exists ? QStringLiteral("'%1' exists but is not a Redisson lock (not a hash of "
                                                  "<clientId>:<threadId> -> hold count)")
                                       .arg(name)
                                 : QStringLiteral("no lock named '%1' (it is free or never existed)").arg(name));
            return;
        }
        then(snaps.first());
    });
}

void LockScopeCli::runShow()
{
    m_session->connection()->open();
    readOne(m_name, [this](const LockSnapshot &s) {
        if (!holderFilter().matches(s)) {
            fail(Refused,
                 QStringLiteral("%1 is not held by and not waited for by --holder %2 (holders: %3)")
                     .arg(DisplayText::escaped(s.name), DisplayText::escaped(holderFilter().holderText()),
                          s.holders.isEmpty() ? QStringLiteral("none") : DisplayText::escaped(s.holderSummary())));
            return;
        }
        if (m_json) {
            m_out << QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact) << '\n';
        } else {
            m_out << "Lock:        " << DisplayText::escaped(s.name) << " ("
                  << (!s.kindCertain && s.kind == LockKind::Lock ? QStringLiteral("lock (fair or plain)")
                                                                 : lockKindLabel(s.kind))
                  << ")\n";
            if (!s.kindCertain)
                m_out << "Kind:        fair or plain: " << s.kindNote << '\n';
            if (!s.nameNote().isEmpty())
                m_out << "Name:        " << s.nameNote() << '\n';
            m_out << "TTL:         " << formatTtl(s.pttlMs) << '\n';
            m_out << "Server time: " << s.serverTimeMs << " ms since epoch\n";
            if (s.holders.isEmpty())
                m_out << "Holders:     none (free)\n";
            for (const auto &v : s.multiLockValues)
                m_out << "Value:       field " << v.fieldId << "  client " << v.clientId << "  thread " << v.threadId
                      << "  hold count " << v.holdCount << "  expires " << v.expireEpochMs << " ms since epoch ("
                      << (v.expireEpochMs < 0 ? QStringLiteral("no expiry field")
                          : v.isLive(s.serverTimeMs)
                              ? QStringLiteral("in %1").arg(formatTtl(v.expireEpochMs - s.serverTimeMs))
                              : QStringLiteral("expired"))
                      << ")\n";
            for (const auto &h : s.holders) {
                QStringList ttls;
                for (qint64 t : h.holdTtlsMs)
                    ttls << (t == -2 ? QStringLiteral("gone") : formatTtl(t));
                m_out << "Holder:      client " << DisplayText::escaped(h.clientId) << "  thread "
                      << DisplayText::escaped(h.threadId) << "  hold count " << h.holdCount
                      << (h.mode.isEmpty() ? QString() : QStringLiteral("  mode ") + h.mode)
                      << (ttls.isEmpty() ? QString() : QStringLiteral("  hold TTLs ") + ttls.join(QLatin1Char(' ')))
                      << '\n';
            }
            m_out << "Waiting:     " << s.subscribers << " client(s) subscribed to "
                  << DisplayText::escaped(s.kind == LockKind::ReadWriteLock ? LockNames::readWriteChannel(s.name)
                                                                            : LockNames::unlockChannel(s.name))
                  << '\n';
            for (const auto &w : s.waiters)
                m_out << "Queued #" << w.position << ":   " << DisplayText::escaped(w.field) << "  deadline in "
                      << (!w.deadlineRaw.isEmpty() ? QStringLiteral("'%1' (not an epoch-ms time)").arg(w.deadlineRaw)
                          : w.deadlineEpochMs >= 0 ? formatTtl(w.deadlineEpochMs - s.serverTimeMs)
                                                   : QStringLiteral("?"))
                      << '\n';
            if (s.token >= 0)
                m_out << "Token:       " << s.token << '\n';
            for (const auto &p : s.problems)
                m_out << "Problem:     " << DisplayText::escaped(p) << '\n';
        }
        finish(Ok);
    });
}

LockFilter LockScopeCli::holderFilter() const
{
    return LockFilter(QString(), m_parser.value(QStringLiteral("holder")));
}

bool LockScopeCli::wantEvent(const LockEvent &e) const
{
    const LockFilter filter = holderFilter();
    if (filter.isEmpty() || (!e.holder.isEmpty() && filter.matchesField(e.holder)))
        return true;
    // An event without that holder (expired, a waiter queued) of a lock it holds or waits for.
    const auto locks = m_session->watcher()->locks();
    const auto it = locks.constFind(e.lock);
    return it != locks.cend() && filter.matches(it.value());
}

void LockScopeCli::runWatch()
{
    LockWatcher *watcher = m_session->watcher();
    connect(m_session, &LockSession::eventsOccurred, this, [this](const QVector<LockEvent> &events) {
        for (const auto &e : events) {
            if (!wantEvent(e))
                continue;
            ++m_watchEvents;
            if (e.type == QLatin1String("coalesced"))
                m_watchCoalesced += e.extra.value(QStringLiteral("count")).toInteger(1);
            if (m_json)
                m_out << QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact) << '\n';
            else
                m_out << QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz")) << "  "
                      << e.type.leftJustified(15) << DisplayText::escaped(e.lock) << "  "
                      << DisplayText::escaped(e.holder) << (e.holder.isEmpty() ? "" : "  ")
                      << DisplayText::escaped(e.detail) << '\n';
        }
        m_out.flush();
    });
    connect(m_session, &LockSession::modeChanged, this, [this](LockMonitor::Mode mode, const QString &detail) {
        if (m_finished)
            return; // e.g. never reached: no "reconnecting" after the exit-2 message
        m_err << "lockscope-cli: " << LockMonitor::modeName(mode) << ": " << detail << '\n';
        m_err.flush();
    });
    bool first = true;
    // Failovers and slot moves (a cluster), in the same stream and shape as lock events ("lock": null).
    connect(watcher, &LockWatcher::topologyChanged, this, [this](const QVector<TopologyEvent> &events) {
        for (const auto &e : events) {
            if (m_json)
                m_out << QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact) << '\n';
            else
                m_out << QDateTime::fromMSecsSinceEpoch(e.timeMs).toString(QStringLiteral("HH:mm:ss.zzz")) << "  "
                      << e.type.leftJustified(15) << e.detail << '\n';
        }
        m_out.flush();
    });
    auto watching = [this, watcher, first]() mutable {
        if (!first)
            return;
        first = false;
        const qsizetype servers = watcher->serverModes().size();
        m_err << "lockscope-cli: watching " << watcher->locks().size() << " lock(s)"
              << (servers > 1 ? QStringLiteral(" on %1 masters").arg(servers) : QString()) << "; Ctrl-C to stop\n";
        m_err.flush();
    };
    connect(watcher, &LockWatcher::idle, this, watching);
    // Ctrl-C / SIGTERM: onInterrupted() ends it (130 / 143).
    if (m_parser.isSet(QStringLiteral("duration-ms")))
        QTimer::singleShot(m_parser.value(QStringLiteral("duration-ms")).toInt(), this,
                           [this] { finish(connectedAtDurationEnd() ? Ok : ServerError); });
    m_session->start();
}

void LockScopeCli::runAcquire()
{
    const qint64 lease = m_parser.value(QStringLiteral("lease-ms")).toLongLong();
    const qint64 wait = m_parser.value(QStringLiteral("wait-ms")).toLongLong();
    const qint64 thread = m_parser.value(QStringLiteral("thread-id")).toLongLong();
    const AcquireKind kind =
        m_parser.isSet(QStringLiteral("kind"))
            ? AcquirePlan::parseKind(m_parser.value(QStringLiteral("kind"))).value_or(AcquireKind::Auto)
            : AcquireKind::Auto;
    m_session->open(); // waiting acquires listen on the unlock channel
    // A watchdog renewal that fails leaves the hold at risk: the session's errorOccurred() says so
    // on stderr at once (§14.2); say it too when the renewals work again.
    connect(m_session, &LockSession::holdRecovered, this, [this](const QString &lock) {
        m_err << "lockscope-cli: the watchdog renewed " << lock << " again\n";
        m_err.flush();
    });
    // Acquire and release both go through LockSession's audited write path (re-read, the client
    // of the lock's kind, audit record), as every other write does.
    struct Hold {
        QString field;
        QString kind;
        qint64 token = -1;
        int exitCode = Ok; ///< after the release: ServerError when an audit record was not written
        bool releasing = false;
    };
    auto hold = std::make_shared<Hold>();
    connect(m_session, &LockSession::acquired, this,
            [hold](const QString &, const QString &field, const QString &kindName, qint64 token) {
                hold->field = field;
                hold->kind = kindName;
                hold->token = token;
            });
    // The release is a write: once sent, it finishes and is audited before the process exits.
    auto release = [this, thread, hold] {
        if (hold->releasing)
            return;
        hold->releasing = true;
        m_writeSent = true;
        m_session->release(m_name, thread);
    };
    // Ctrl-C / SIGTERM: release the hold first (exit 130 / 143 once released); while the acquire
    // is still waiting, nothing is held and the process ends (a hold that arrives meanwhile is
    // released at once, below).
    m_onInterrupt = [hold, release] {
        if (!hold->field.isEmpty())
            release();
    };
    auto holdUntilDone = [this, release] {
        if (m_signal) {
            release();
            return;
        }
        if (m_parser.isSet(QStringLiteral("hold-ms"))) {
            QTimer::singleShot(m_parser.value(QStringLiteral("hold-ms")).toInt(), this, release);
            return;
        }
        m_err << "holding " << DisplayText::escaped(m_name) << "; Ctrl-C to release\n";
        m_err.flush();
    };
    connect(
        m_session, &LockSession::actionFinished, this,
        [this, hold, lease, holdUntilDone, release](const QString &action, const QString &, bool ok,
                                                    const QString &message, const QString &outcome) {
            if (action == QLatin1String("acquire")) {
                if (outcome == QLatin1String("audit_failed") && !hold->field.isEmpty()) {
                    // Held, but unaudited: say so, give it back (that release is audited if it can be).
                    m_err << "lockscope-cli: " << RedisBytes::displayed(message) << "; releasing it again\n";
                    m_err.flush();
                    hold->exitCode = ServerError;
                    release();
                    return;
                }
                if (!ok) {
                    fail(outcome == QLatin1String("error") || outcome == QLatin1String("audit_failed") ? ServerError
                                                                                                       : Refused,
                         message);
                    return;
                }
                const qint64 watchdogMs = m_session->clientFor(m_name)->watchdogTimeoutMs();
                QString how =
                    lease > 0
                        ? QStringLiteral("lease %1 ms").arg(lease)
                        : QStringLiteral("watchdog: %1 ms, renewed every %2 ms").arg(watchdogMs).arg(watchdogMs / 3);
                if (hold->kind != QLatin1String("lock"))
                    how = QStringLiteral("%1 lock, %2").arg(hold->kind, how);
                if (hold->token >= 0)
                    how += QStringLiteral(", fencing token %1").arg(hold->token);
                m_out << "acquired " << DisplayText::escaped(m_name) << " as " << DisplayText::escaped(hold->field)
                      << " (" << how << ")\n";
                m_out.flush();
                holdUntilDone();
            } else if (action == QLatin1String("release")) {
                m_writeSent = false;
                if (ok) {
                    m_out << "released " << DisplayText::escaped(m_name) << '\n';
                    m_out.flush();
                    if (hold->exitCode != Ok)
                        fail(hold->exitCode, QStringLiteral("the acquire of %1 has no audit record").arg(m_name));
                    else
                        finish(m_signal ? 128 + m_signal : Ok);
                } else {
                    fail(outcome == QLatin1String("refused") || outcome == QLatin1String("changed") ? Refused
                                                                                                    : ServerError,
                         QStringLiteral("release of %1 failed: %2").arg(m_name, message));
                }
            }
        });
    m_session->acquire(m_name, thread, lease, wait, kind);
}

void LockScopeCli::runDoctor()
{
    LockWatcher *watcher = m_session->watcher(); // a cluster: every master
    auto allLocks = [watcher] { return watcher->locks(); };
    auto doctor = std::make_shared<LockDoctor>();
    LockDoctor::Thresholds t;
    t.watchdogHeldMs = m_parser.value(QStringLiteral("watchdog-threshold-ms")).toLongLong();
    t.waitersWithoutHolderMs = m_parser.value(QStringLiteral("waiter-threshold-ms")).toLongLong();
    doctor->setThresholds(t);
    // Its "do:" commands reach this server when pasted (issue 15.5).
    doctor->setCommandConnection(
        ConnectionOptions::commandArguments(m_session->options().endpoint, m_session->isCluster()));
    const qint64 observeMs = m_parser.value(QStringLiteral("observe-ms")).toLongLong();

    auto observe = [doctor](const QVector<LockSnapshot> &changed, const QStringList &removed) {
        for (const auto &s : changed)
            doctor->observe(s);
        for (const auto &n : removed)
            doctor->forget(n);
    };
    auto failed = [this](const QString &msg) { fail(ServerError, msg); };
    connect(watcher, &LockWatcher::locksUpdated, this, observe);
    connect(watcher, &LockWatcher::errorOccurred, this, failed);
    auto reportWith = [this, allLocks, doctor](const DoctorProbe::Result &r) {
        if (!r.error.isEmpty())
            m_err << "lockscope-cli: some doctor reads failed: " << r.error << '\n';
        const qint64 now = LockSnapshot::steadyNowMs();
        doctor->observeOrphanWaiters(r.orphanSubscribers, now);
        doctor->observeLatches(r.latches, r.latchCount);
        QVector<LockFinding> findings = doctor->diagnose(allLocks(), now);
        const LockFilter filter = holderFilter();
        if (!filter.isEmpty()) { // --holder: findings about its locks, or naming it
            const auto locks = allLocks();
            const qsizetype all = findings.size();
            findings.erase(std::remove_if(findings.begin(), findings.end(),
                                          [&](const LockFinding &f) {
                                              QStringList names = f.locks;
                                              names << f.lock;
                                              for (const QString &n : names)
                                                  if (locks.contains(n) && filter.matches(locks.value(n)))
                                                      return false;
                                              const QString text =
                                                  QString::fromUtf8(QJsonDocument(f.evidence).toJson());
                                              return !text.contains(filter.holderText(), Qt::CaseInsensitive);
                                          }),
                           findings.end());
            if (!m_json)
                m_err << "lockscope-cli: " << findings.size() << " of " << all << " findings concern --holder "
                      << DisplayText::escaped(filter.holderText()) << '\n';
        }
        int counts[3] = {0, 0, 0};
        QString heading; // the lock(s) of the findings printed last: named once, not on every line
        for (const auto &f : findings) {
            ++counts[int(f.severity)];
            if (m_json) {
                m_out << QJsonDocument(f.toJson()).toJson(QJsonDocument::Compact) << '\n';
                continue;
            }
            QStringList evidence;
            for (auto it = f.evidence.constBegin(); it != f.evidence.constEnd(); ++it) {
                const QJsonValue v = it.value();
                evidence << QStringLiteral("%1=%2").arg(
                    it.key(), v.isString()
                                  ? v.toString()
                                  : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact))
                                        .mid(1)
                                        .chopped(1));
            }
            const QString concerned = f.locks.isEmpty() ? f.lock : f.locks.join(QStringLiteral(", "));
            if (concerned != heading) {
                heading = concerned;
                m_out << DisplayText::escaped(concerned) << '\n';
            }
            QString title = f.title;
            if (title.startsWith(f.lock + QLatin1Char(' ')))
                title = title.mid(f.lock.size() + 1); // "orders:42 has no TTL" under "orders:42"
            m_out << "  [" << LockFinding::severityName(f.severity).toUpper() << "] " << DisplayText::escaped(title)
                  << '\n'
                  << "    why:      " << DisplayText::escaped(f.explanation) << '\n'
                  << "    evidence: " << DisplayText::escaped(evidence.join(QStringLiteral(", "))) << '\n'
                  << "    do:       " << DisplayText::escaped(f.action) << "\n\n";
        }
        if (!m_json) {
            if (findings.isEmpty())
                m_out << "No problems found on " << m_session->options().endpoint.address() << " (" << allLocks().size()
                      << " lock(s) checked).\n";
            else
                m_out << findings.size() << " finding(s): " << counts[2] << " critical, " << counts[1] << " warning, "
                      << counts[0] << " info (" << allLocks().size() << " lock(s) checked).\n";
        }
        finish(LockDoctor::worstSeverity(findings) >= int(LockFinding::Severity::Warning) ? ProblemsFound : Ok);
    };
    // One pass (no --observe-ms): the probe (channels, latch SCAN) does not depend on the locks, so
    // it runs beside the discovery instead of after it (issue 12); the report waits for both.
    struct EarlyProbe {
        bool started = false;
        bool done = false;
        bool locksRead = false;
        DoctorProbe::Result result;
    };
    auto early = std::make_shared<EarlyProbe>();
    if (observeMs <= 0) {
        connect(m_session, &LockSession::discoveryProgress, this, [this, early, reportWith] {
            if (early->started)
                return; // connected and scanning: start the probe once
            early->started = true;
            m_session->probeForDoctor([early, reportWith](const DoctorProbe::Result &r) {
                early->done = true;
                early->result = r;
                if (early->locksRead)
                    reportWith(r);
            });
        });
    }
    auto report = [this, reportWith, early] {
        if (early->started) {
            early->locksRead = true;
            if (early->done)
                reportWith(early->result);
            return;
        }
        // On every master in a cluster, each for the locks it serves.
        m_session->probeForDoctor(reportWith);
    };
    bool first = true;
    auto ready = [this, report, observeMs, first, doctor]() mutable {
        if (!first)
            return;
        first = false;
        if (observeMs <= 0) {
            report();
            return;
        }
        m_err << "lockscope-cli: observing for " << observeMs << " ms…\n";
        m_err.flush();
        // A first probe starts the clock of "waiting without a holder since".
        m_session->probeForDoctor([doctor](const DoctorProbe::Result &r) {
            doctor->observeOrphanWaiters(r.orphanSubscribers, LockSnapshot::steadyNowMs());
        });
        QTimer::singleShot(int(observeMs), this, report);
    };
    connect(watcher, &LockWatcher::idle, this, ready);
    m_session->start();
}

void LockScopeCli::runRecord()
{
    auto recorder = std::make_shared<SessionRecorder>();
    QString error;
    const QJsonObject header{
        {QStringLiteral("server"), m_session->options().endpoint.toString()},
        {QStringLiteral("pattern"), m_session->options().pattern},
        {QStringLiteral("writer"), QStringLiteral("lockscope-cli %1").arg(QCoreApplication::applicationVersion())}};
    if (!recorder->open(m_parser.value(QStringLiteral("out")), header, &error)) {
        fail(ServerError, error);
        return;
    }
    connect(m_session, &LockSession::locksUpdated, this,
            [recorder](const QVector<LockSnapshot> &c, const QStringList &r) {
                recorder->recordLocks(c, r, QDateTime::currentMSecsSinceEpoch());
            });
    connect(m_session, &LockSession::eventsOccurred, this,
            [recorder](const QVector<LockEvent> &e) { recorder->recordEvents(e); });
    auto stop = [this, recorder] {
        recorder->close();
        if (!recorder->error().isEmpty()) {
            fail(ServerError, recorder->error());
            return;
        }
        m_out << "recorded " << recorder->records() << " record(s) to " << recorder->path() << '\n';
        finish(m_signal ? 128 + m_signal : m_durationEndedDisconnected ? ServerError : Ok);
    };
    m_onInterrupt = stop; // Ctrl-C: the recording is closed whole, then exit 130 / 143
    if (m_parser.isSet(QStringLiteral("duration-ms")))
        QTimer::singleShot(m_parser.value(QStringLiteral("duration-ms")).toInt(), this, [this, stop] {
            connectedAtDurationEnd(); // exit 2 when not
            stop();
        });
    m_err << "lockscope-cli: recording to " << recorder->path() << "; Ctrl-C to stop\n";
    m_err.flush();
    m_session->start();
}

static QString csvField(const QString &v)
{
    if (!v.contains(QLatin1Char(',')) && !v.contains(QLatin1Char('"')) && !v.contains(QLatin1Char('\n')))
        return v;
    return QLatin1Char('"') + QString(v).replace(QStringLiteral("\""), QStringLiteral("\"\"")) + QLatin1Char('"');
}

int LockScopeCli::runExport()
{
    Recording rec;
    QString error;
    if (!Recording::load(m_name, &rec, &error)) {
        m_err << "lockscope-cli: " << error << '\n';
        return Refused;
    }
    if (!rec.warning.isEmpty())
        m_err << "lockscope-cli: " << rec.warning << '\n';
    HistoryStore::Retention keepAll;
    keepAll.maxAgeMs = std::numeric_limits<qint64>::max() / 4;
    keepAll.maxSamplesPerLock = keepAll.maxIntervalsPerLock = keepAll.maxEvents = std::numeric_limits<int>::max();
    keepAll.maxLocks = std::numeric_limits<int>::max();
    HistoryStore history(keepAll);
    for (const auto &r : rec.records) {
        for (const auto &s : r.changed)
            history.addSnapshot(s, r.timeMs);
        for (const auto &n : r.removed)
            history.addRemoval(n, r.timeMs);
        history.addEvents(r.events);
    }
    const QFileInfo info(m_name);
    const QString dir =
        m_parser.isSet(QStringLiteral("out-dir")) ? m_parser.value(QStringLiteral("out-dir")) : info.absolutePath();
    QString base = info.fileName();
    for (const char *ext : {".gz", ".jsonl", ".json"})
        if (base.endsWith(QLatin1String(ext)))
            base.chop(int(qstrlen(ext)));
    const QString eventsPath = QDir(dir).filePath(base + QStringLiteral("-events.csv"));
    const QString holdsPath = QDir(dir).filePath(base + QStringLiteral("-holds.csv"));
    QSaveFile events(eventsPath);
    QSaveFile holds(holdsPath);
    if (!events.open(QIODevice::WriteOnly) || !holds.open(QIODevice::WriteOnly)) {
        m_err << "lockscope-cli: cannot write the CSV files in " << dir << '\n';
        return ServerError;
    }
    QTextStream ev(&events);
    ev << "time_ms,lock,type,holder,detail\n";
    int nEvents = 0;
    for (const auto &e : history.events()) {
        ev << e.timeMs << ',' << csvField(e.lock) << ',' << e.type << ',' << csvField(e.holder) << ','
           << csvField(e.detail) << '\n';
        ++nEvents;
    }
    QTextStream ho(&holds);
    ho << "lock,holder,start_ms,end_ms,duration_ms,end_reason\n";
    int nHolds = 0;
    for (const auto &h : history.holds()) {
        ho << csvField(h.lock) << ',' << csvField(h.who) << ',' << h.startMs << ','
           << (h.endMs < 0 ? QString() : QString::number(h.endMs)) << ','
           << (h.endMs < 0 ? QString() : QString::number(h.endMs - h.startMs)) << ',' << h.endReason << '\n';
        ++nHolds;
    }
    ev.flush();
    ho.flush();
    if (!events.commit() || !holds.commit()) {
        m_err << "lockscope-cli: writing the CSV files failed\n";
        return ServerError;
    }
    m_out << "wrote " << nEvents << " event(s) to " << eventsPath << " and " << nHolds << " hold interval(s) to "
          << holdsPath << '\n';
    m_out.flush();
    m_err.flush();
    return Ok;
}

bool LockScopeCli::confirm(const QString &question, const QString &typedAnswer)
{
    if (m_parser.isSet(QStringLiteral("yes")))
        return true;
    if (!isatty(fileno(stdin))) {
        fail(Refused,
             QStringLiteral("not confirmed: pass --yes to %1 without a terminal. Nothing was changed.").arg(m_command));
        return false;
    }
    if (typedAnswer.isEmpty())
        m_err << question << " [y/N] ";
    else
        m_err << question << " Type the lock name to confirm: ";
    m_err.flush();
    QTextStream in(stdin);
    g_exitAtOnce = 1; // nothing was sent yet: Ctrl-C during the prompt exits at once
    if (g_interrupted)
        ::_exit(128 + int(g_interrupted));
    const QString answer = in.readLine().trimmed();
    g_exitAtOnce = 0;
    const bool ok = typedAnswer.isEmpty() ? (answer.compare(QLatin1String("y"), Qt::CaseInsensitive) == 0 ||
                                             answer.compare(QLatin1String("yes"), Qt::CaseInsensitive) == 0)
                                          : (answer == typedAnswer || RedisBytes::fromDisplayed(answer) == typedAnswer);
    if (!ok)
        fail(Refused, QStringLiteral("not confirmed: nothing was changed"));
    return ok;
}

bool LockScopeCli::awaitAction()
{
    if (m_signal) { // interrupted before the write was sent: send nothing
        finish(128 + m_signal);
        return false;
    }
    m_writeSent = true; // a signal now waits for the (audited) result, then exits 130 / 143
    connect(m_session, &LockSession::actionFinished, this,
            [this](const QString &, const QString &, bool ok, const QString &message, const QString &outcome) {
                m_writeSent = false;
                if (ok && m_signal) {
                    m_out << RedisBytes::displayed(message) << '\n';
                    finish(128 + m_signal);
                } else if (ok) {
                    m_out << RedisBytes::displayed(message) << '\n';
                    finish(Ok);
                } else if (outcome == QLatin1String("error") || outcome == QLatin1String("audit_failed")) {
                    fail(ServerError, message);
                } else {
                    fail(Refused, message);
                }
            });
    return true;
}

void LockScopeCli::runForceUnlock()
{
    m_session->open();
    readOne(m_name, [this](const LockSnapshot &s) {
        m_err << "Force unlock " << DisplayText::escaped(s.name) << " (" << lockKindLabel(s.kind) << "):\n";
        if (s.holders.isEmpty())
            m_err << "  holder:  none\n";
        for (const auto &h : s.holders)
            m_err << "  holder:  " << DisplayText::escaped(h.field) << "  hold count " << h.holdCount << '\n';
        m_err << "  TTL:     " << formatTtl(s.pttlMs) << '\n';
        if (s.kind == LockKind::FairLock)
            m_err << "  waiting: " << s.queueLength << " queued; the head waiter "
                  << (s.waiters.isEmpty() ? QStringLiteral("(none)") : s.waiters.first().field) << " will be woken\n";
        else
            m_err << "  waiting: " << s.subscribers << " client(s) will be woken by the unlock message\n";
        if (!confirm(QStringLiteral("The holder will not be told and may still think it holds the lock."),
                     s.isHeld() ? s.name : QString()))
            return;
        if (!awaitAction())
            return;
        // Deleted only if the lock is still exactly what was shown above.
        m_session->forceUnlock(m_name, s.stateFingerprint());
    });
}

void LockScopeCli::runRepair()
{
    m_session->open();
    if (m_command == QLatin1String("wake")) {
        if (!confirm(QStringLiteral("Publish the unlock message of %1 to wake the clients waiting for it?").arg(m_name),
                     QString()))
            return;
        if (!awaitAction())
            return;
        m_session->wake(m_name);
        return;
    }
    readOne(m_name, [this](const LockSnapshot &s) {
        if (m_command == QLatin1String("set-ttl")) {
            const qint64 ttl = m_parser.value(QStringLiteral("ttl-ms")).toLongLong();
            m_err << "Set a TTL of " << ttl << " ms on " << DisplayText::escaped(s.name)
                  << " (TTL now: " << formatTtl(s.pttlMs)
                  << ", holders: " << (s.holders.isEmpty() ? QStringLiteral("none") : s.holderSummary()) << ")\n";
            if (!confirm(QStringLiteral("The lock then expires unless its holder renews or releases it."), QString()))
                return;
            if (!awaitAction())
                return;
            m_session->setTtl(m_name, ttl, s.stateFingerprint());
        } else if (m_command == QLatin1String("remove-waiter")) {
            m_err << "Remove waiter " << DisplayText::escaped(m_field) << " from the queue and timeout set of "
                  << DisplayText::escaped(s.name) << " (" << s.queueLength << " queued)\n";
            if (!confirm(QStringLiteral("Waiters behind it move up; if it is alive it will re-enqueue at the back."),
                         QString()))
                return;
            if (!awaitAction())
                return;
            m_session->removeWaiter(
                m_name, m_field,
                m_parser.isSet(QStringLiteral("wait-ms")) ? m_parser.value(QStringLiteral("wait-ms")).toLongLong() : 0);
        } else {
            m_err << "Remove dead reader " << DisplayText::escaped(m_field) << " from " << DisplayText::escaped(s.name)
                  << "\n";
            if (!confirm(QStringLiteral("Only done if all its rwlock_timeout keys are gone."), QString()))
                return;
            if (!awaitAction())
                return;
            m_session->removeReader(m_name, m_field);
        }
    });
}

} // namespace lockscope
