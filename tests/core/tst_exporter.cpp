// The metrics exporter: `lockscope-cli serve` against real redis-servers (single, 3-master cluster) and a real
// Prometheus (Debian's `prometheus`, started here on loopback with a generated config and a
// scratch TSDB): after a hand-over, a renewal and an expired lease, Prometheus's HTTP API returns
// the right held locks, events and findings; the shipped alert for a lock without TTL fires (its
// `for:` shortened); promtool accepts /metrics and the shipped rules, whose unit tests
// (lockscope-alerts.test.yml) pass; MONITOR shows no write
// command from serve's connections; bad options exit 1 naming the option with nothing written;
// TLS and basic auth from --web-config; SIGTERM ends it at once.

#include "demo/redisserverprocess.h"
#include "localcluster.h"
#include "metrics/webconfig.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

#include <csignal>
#include <memory>

using namespace lockscope;
using namespace lockscope::test;

namespace
{

const QString kCli = QStringLiteral(LOCKSCOPE_CLI_PATH);
const QString kAlerts = QStringLiteral(LOCKSCOPE_SOURCE_DIR "/packaging/prometheus/lockscope-alerts.yml");
const QString kAlertTests = QStringLiteral(LOCKSCOPE_SOURCE_DIR "/packaging/prometheus/lockscope-alerts.test.yml");

/** A running `lockscope-cli serve`; port() once it said where it serves. */
class Serve
{
public:
    explicit Serve(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(env);
        m_process.start(kCli, args);
        m_process.closeWriteChannel();
    }
    ~Serve()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(3000);
        }
    }
    /** Waits for "serving metrics of ... on http(s)://HOST:PORT/metrics"; 0 when it did not come. */
    quint16 waitForPort(int timeoutMs = 10000)
    {
        static const QRegularExpression re(QStringLiteral(":(\\d+)/metrics"));
        waitUntil(
            [this] {
                m_err += m_process.readAllStandardError();
                return re.match(QString::fromUtf8(m_err)).hasMatch() || m_process.state() == QProcess::NotRunning;
            },
            timeoutMs);
        const auto m = re.match(QString::fromUtf8(m_err));
        return m.hasMatch() ? quint16(m.captured(1).toUInt()) : 0;
    }
    QProcess &process() { return m_process; }
    QByteArray err()
    {
        m_err += m_process.readAllStandardError();
        return m_err;
    }

private:
    QProcess m_process;
    QByteArray m_err;
};

struct HttpResult {
    int status = 0;
    QByteArray body;
    QByteArray contentType;
    QString error;
};

HttpResult httpGet(const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers = {}, bool insecureTls = false)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(url);
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    QNetworkReply *reply = nam.get(request);
    if (insecureTls)
        reply->ignoreSslErrors();
    HttpResult r;
    if (!waitUntil([reply] { return reply->isFinished(); }, 10000)) {
        r.error = QStringLiteral("timeout");
        reply->abort();
    }
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    if (reply->error() != QNetworkReply::NoError && r.error.isEmpty())
        r.error = reply->errorString();
    reply->deleteLater();
    return r;
}

/** The value of the sample line that starts with `series` in an exposition, -1 when absent. */
double sampleValue(const QByteArray &exposition, const QByteArray &series)
{
    for (const QByteArray &line : exposition.split('\n'))
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    return -1;
}

/** A Prometheus server of its own: loopback port, scratch TSDB, 1 s scrape and rule evaluation. */
class LocalPrometheus
{
public:
    static QString binary() { return QStandardPaths::findExecutable(QStringLiteral("prometheus")); }

    bool start(quint16 targetPort, const QString &rulesFile, QString *error)
    {
        m_port = RedisServerProcess::freePort();
        QFile config(m_dir.filePath(QStringLiteral("prometheus.yml")));
        if (!config.open(QIODevice::WriteOnly))
            return false;
        config.write(QStringLiteral("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                    "rule_files:\n  - %1\n"
                                    "scrape_configs:\n  - job_name: lockscope\n    static_configs:\n"
                                    "      - targets: ['127.0.0.1:%2']\n")
                         .arg(rulesFile)
                         .arg(targetPort)
                         .toUtf8());
        config.close();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        m_process.start(binary(), {QStringLiteral("--config.file=") + config.fileName(),
                                   QStringLiteral("--storage.tsdb.path=") + m_dir.filePath(QStringLiteral("data")),
                                   QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port),
                                   QStringLiteral("--log.level=warn")});
        const bool ready = waitUntil(
            [this] {
                return m_process.state() == QProcess::Running &&
                       httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/-/ready").arg(m_port))).status == 200;
            },
            20000);
        if (!ready)
            *error = QString::fromUtf8(m_process.readAll());
        return ready;
    }
    ~LocalPrometheus()
    {
        m_process.terminate();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(2000);
    }
    /** The first result of an instant query, or NaN (as -1e300) when there is none. */
    double query(const QString &promql)
    {
        QUrl url(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(m_port));
        url.setQuery(QUrlQuery{{QStringLiteral("query"), promql}});
        const QJsonArray result = QJsonDocument::fromJson(httpGet(url).body)
                                      .object()
                                      .value(QStringLiteral("data"))
                                      .toObject()
                                      .value(QStringLiteral("result"))
                                      .toArray();
        if (result.isEmpty())
            return -1e300;
        return result.first().toObject().value(QStringLiteral("value")).toArray().at(1).toString().toDouble();
    }
    /** Waits until `promql` gives `expected`; says what it gave last when it does not. */
    bool waitFor(const QString &promql, double expected, QString *last, int timeoutMs = 20000)
    {
        double v = 0;
        const bool ok = waitUntil([&] { return (v = query(promql)) == expected; }, timeoutMs);
        *last = QStringLiteral("%1 = %2 (wanted %3)")
                    .arg(promql)
                    .arg(v == -1e300 ? QStringLiteral("no data") : QString::number(v))
                    .arg(expected);
        return ok;
    }
    QJsonArray alerts()
    {
        return QJsonDocument::fromJson(
                   httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/api/v1/alerts").arg(m_port))).body)
            .object()
            .value(QStringLiteral("data"))
            .toObject()
            .value(QStringLiteral("alerts"))
            .toArray();
    }

private:
    QTemporaryDir m_dir;
    QProcess m_process;
    quint16 m_port = 0;
};

} // namespace

class TestExporter : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void prometheusSeesHandOverExpiryAndFindings();
    void promtoolAcceptsTheRules();
    void alertRulesPassTheirUnitTests();
    void clusterEveryMaster();
    void badOptionsExitWithoutWriting();
    void tlsAndBasicAuth();
    void sigtermEndsAtOnce();
    void scanMetricsCountTheLocksThePassFound();

private:
    RedisServerProcess m_server;
};

void TestExporter::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestExporter::prometheusSeesHandOverExpiryAndFindings()
{
    if (LocalPrometheus::binary().isEmpty())
        QSKIP("prometheus is not installed (Debian: apt-get install prometheus; run.sh installs it)");
    SyncClient admin(m_server.endpoint(), "exporter-test-admin");
    QVERIFY(admin.open());
    admin.flushall();
    // Everything serve sends, to prove afterwards that none of it writes.
    QProcess monitor;
    monitor.start(redisCliPath(), {QStringLiteral("-p"), QString::number(m_server.port()), QStringLiteral("monitor")});
    QVERIFY(monitor.waitForStarted());
    QVERIFY(waitUntil([&] { return monitor.bytesAvailable() > 0 || monitor.readAllStandardOutput().contains("OK"); },
                      5000) ||
            true);

    Serve serve({QStringLiteral("--url"), m_server.url(), QStringLiteral("serve"), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0")});
    const quint16 port = serve.waitForPort();
    QVERIFY2(port != 0, serve.err().constData());
    const QUrl metricsUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
    QVERIFY2(waitUntil([&] { return sampleValue(httpGet(metricsUrl).body, "lockscope_scan_passes_total") >= 1; }),
             serve.err().constData());

    // Prometheus with the shipped rules, every `for:` shortened to 1 s.
    QTemporaryDir dir;
    QFile shipped(kAlerts);
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    QString rules = QString::fromUtf8(shipped.readAll());
    rules.replace(QRegularExpression(QStringLiteral("for: \\S+")), QStringLiteral("for: 1s"));
    QFile rulesFile(dir.filePath(QStringLiteral("rules.yml")));
    QVERIFY(rulesFile.open(QIODevice::WriteOnly));
    rulesFile.write(rules.toUtf8());
    rulesFile.close();
    LocalPrometheus prometheus;
    QString error;
    QVERIFY2(prometheus.start(port, rulesFile.fileName(), &error), qPrintable(error));

    // The locks, written as a client would leave them (plain commands, so that every script
    // MONITOR shows is serve's): a hand-over of orders:1 from A to B with a renewal, a lease of
    // inventory:7 that runs out, legacy:cron without TTL.
    const QByteArray a = newClientId().toUtf8() + ":1", b = newClientId().toUtf8() + ":1";
    const QByteArray c = newClientId().toUtf8() + ":7", d = newClientId().toUtf8() + ":3";
    admin.cmd({"HSET", "orders:1", a, "1"});
    admin.cmd({"PEXPIRE", "orders:1", "30000"});
    admin.cmd({"HSET", "inventory:7", c, "1"});
    admin.cmd({"PEXPIRE", "inventory:7", "1500"});
    admin.cmd({"HSET", "legacy:cron", d, "1"});
    QVERIFY(waitUntil([&] {
        return sampleValue(httpGet(metricsUrl).body, "lockscope_events_total{group=\"orders:*\",type=\"acquired\"}") ==
               1;
    }));
    QTest::qWait(1200);
    admin.cmd({"PEXPIRE", "orders:1", "30000"}); // a watchdog renewal: the TTL jumps back
    QVERIFY(waitUntil([&] {
        return sampleValue(httpGet(metricsUrl).body, "lockscope_events_total{group=\"orders:*\",type=\"renewed\"}") ==
               1;
    }));
    admin.cmd({"DEL", "orders:1"});
    admin.cmd({"PUBLISH", "redisson_lock__channel:{orders:1}", "0"});
    admin.cmd({"HSET", "orders:1", b, "1"});
    admin.cmd({"PEXPIRE", "orders:1", "30000"});

    QString last;
    QVERIFY2(prometheus.waitFor(QStringLiteral("lockscope_held_locks{group=\"orders:*\"}"), 1, &last),
             qPrintable(last));
    QVERIFY2(
        prometheus.waitFor(QStringLiteral("lockscope_events_total{group=\"orders:*\",type=\"acquired\"}"), 2, &last),
        qPrintable(last));
    QVERIFY2(
        prometheus.waitFor(QStringLiteral("lockscope_events_total{group=\"orders:*\",type=\"released\"}"), 1, &last),
        qPrintable(last));
    QVERIFY2(
        prometheus.waitFor(QStringLiteral("lockscope_events_total{group=\"orders:*\",type=\"renewed\"}"), 1, &last),
        qPrintable(last));
    QVERIFY2(
        prometheus.waitFor(QStringLiteral("lockscope_events_total{group=\"inventory:*\",type=\"expired\"}"), 1, &last),
        qPrintable(last));
    QVERIFY2(prometheus.waitFor(QStringLiteral("lockscope_held_locks{group=\"inventory:*\"}"), 0, &last),
             qPrintable(last));
    QVERIFY2(prometheus.waitFor(QStringLiteral("lockscope_locks{kind=\"lock\"}"), 2, &last), qPrintable(last));
    QVERIFY2(prometheus.waitFor(QStringLiteral("lockscope_findings{code=\"no_ttl\",severity=\"critical\"}"), 1, &last),
             qPrintable(last));
    QVERIFY2(
        prometheus.waitFor(QStringLiteral("lockscope_finding_info{lock=\"legacy:cron\",code=\"no_ttl\"}"), 1, &last),
        qPrintable(last));
    QVERIFY2(prometheus.waitFor(QStringLiteral("lockscope_up"), 1, &last), qPrintable(last));
    QVERIFY2(prometheus.waitFor(QStringLiteral("up{job=\"lockscope\"}"), 1, &last), qPrintable(last));

    // The shipped rule for a lock without TTL fires.
    bool firing = false;
    QJsonArray alerts;
    waitUntil(
        [&] {
            alerts = prometheus.alerts();
            for (const auto &v : alerts) {
                const QJsonObject o = v.toObject();
                if (o.value(QStringLiteral("labels")).toObject().value(QStringLiteral("alertname")).toString() ==
                        QLatin1String("LockScopeLockWithoutTTL") &&
                    o.value(QStringLiteral("state")).toString() == QLatin1String("firing"))
                    firing = true;
            }
            return firing;
        },
        20000);
    QVERIFY2(firing, QJsonDocument(alerts).toJson().constData());

    // promtool accepts what serve exposes, in both formats' text variant.
    const HttpResult metrics = httpGet(metricsUrl);
    QVERIFY(metrics.contentType.startsWith("text/plain; version=0.0.4"));
    QFile exposition(dir.filePath(QStringLiteral("metrics.txt")));
    QVERIFY(exposition.open(QIODevice::WriteOnly));
    exposition.write(metrics.body);
    exposition.close();
    const ProcessResult check =
        runProcess(QStringLiteral("sh"),
                   {QStringLiteral("-c"), QStringLiteral("promtool check metrics < '%1'").arg(exposition.fileName())});
    QVERIFY2(check.finished && check.exitCode == 0, qPrintable(check.describe()));
    const HttpResult om = httpGet(metricsUrl, {{"Accept", "application/openmetrics-text;version=1.0.0"}});
    QVERIFY(om.contentType.startsWith("application/openmetrics-text"));
    QVERIFY(om.body.endsWith("# EOF\n"));
    QVERIFY(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/healthz").arg(port))).body == "ok\n");
    QVERIFY(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(port))).body.contains("href=\"metrics\""));
    QCOMPARE(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/nothing").arg(port))).status, 404);

    // Read-only: no command serve sent (on its connections, or inside its scripts) is a write.
    QStringList serveAddresses;
    const QByteArray clients = admin.cmd({"CLIENT", "LIST"}).toByteArray();
    for (const QByteArray &line : clients.split('\n'))
        if (line.contains(" name=lockscope ") || line.contains(" name=lockscope-sub "))
            serveAddresses << QString::fromLatin1(line.mid(line.indexOf("addr=") + 5).split(' ').first());
    QVERIFY2(!serveAddresses.isEmpty(), clients.constData());
    QSet<QString> writeCommands{QStringLiteral("publish"), QStringLiteral("spublish"), QStringLiteral("config|set"),
                                QStringLiteral("script|flush"), QStringLiteral("function|load")};
    const RedisReply writeList = admin.cmd({"COMMAND", "LIST", "FILTERBY", "ACLCAT", "write"});
    for (const RedisReply &r : writeList.elements())
        writeCommands << QString::fromUtf8(r.toByteArray()).toLower();
    QVERIFY(writeCommands.contains(QStringLiteral("hset")));
    monitor.kill();
    monitor.waitForFinished(3000);
    int seen = 0;
    static const QRegularExpression lineRe(
        QStringLiteral("^[0-9.]+ \\[\\d+ ([^\\]]+)\\] \"([^\"]+)\"(?: \"([^\"]*)\")?"));
    for (const QByteArray &raw : monitor.readAllStandardOutput().split('\n')) {
        const auto m = lineRe.match(QString::fromUtf8(raw));
        if (!m.hasMatch())
            continue;
        const QString who = m.captured(1);
        if (who != QLatin1String("lua") && !serveAddresses.contains(who))
            continue;
        ++seen;
        const QString command = m.captured(2).toLower();
        const QString withSub = command + QLatin1Char('|') + m.captured(3).toLower();
        QVERIFY2(!writeCommands.contains(command) && !writeCommands.contains(withSub),
                 qPrintable(QStringLiteral("serve sent a write: %1").arg(QString::fromUtf8(raw))));
    }
    QVERIFY2(seen > 10, "MONITOR showed (almost) nothing from serve");
    qInfo("MONITOR: %d commands from serve's connections and scripts, none a write", seen);
}

void TestExporter::promtoolAcceptsTheRules()
{
    if (QStandardPaths::findExecutable(QStringLiteral("promtool")).isEmpty())
        QSKIP("promtool is not installed (Debian: apt-get install prometheus)");
    const ProcessResult r =
        runProcess(QStringLiteral("promtool"), {QStringLiteral("check"), QStringLiteral("rules"), kAlerts});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("SUCCESS"), qPrintable(r.describe()));
}

void TestExporter::alertRulesPassTheirUnitTests()
{
    // lockscope-alerts.test.yml: series as serve exposes them and the alerts (labels and
    // annotations) each rule must give at given times, the lease-safety rules included.
    if (QStandardPaths::findExecutable(QStringLiteral("promtool")).isEmpty())
        QSKIP("promtool is not installed (Debian: apt-get install prometheus)");
    const ProcessResult r =
        runProcess(QStringLiteral("promtool"), {QStringLiteral("test"), QStringLiteral("rules"), kAlertTests});
    QVERIFY2(r.finished && r.exitCode == 0, qPrintable(r.describe()));
    QVERIFY2(r.out.contains("SUCCESS"), qPrintable(r.describe()));
}

void TestExporter::clusterEveryMaster()
{
    LocalCluster cluster;
    QString error;
    if (!cluster.start(3, &error))
        QFAIL(qPrintable(error));
    // One lock per master (names whose slots the three masters serve).
    QSet<int> nodes;
    SyncClient admin0(cluster.endpoint(0), "exporter-test-admin");
    QVERIFY(admin0.open());
    for (int i = 0; nodes.size() < 3 && i < 100; ++i) {
        const QByteArray name = "orders:" + QByteArray::number(i);
        const int node = cluster.nodeOf(name);
        if (nodes.contains(node))
            continue;
        nodes.insert(node);
        const ProcessResult r =
            redisCli(cluster.port(node), {QStringLiteral("HSET"), QString::fromUtf8(name),
                                          newClientId() + QStringLiteral(":1"), QStringLiteral("1")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    }
    Serve serve({QStringLiteral("--url"), cluster.url(0), QStringLiteral("serve"), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0")});
    const quint16 port = serve.waitForPort();
    QVERIFY2(port != 0, serve.err().constData());
    const QUrl url(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
    QByteArray body;
    const bool ok = waitUntil(
        [&] {
            body = httpGet(url).body;
            return sampleValue(body, "lockscope_masters_live") == 3 &&
                   sampleValue(body, "lockscope_held_locks{group=\"orders:*\"}") == 3 &&
                   sampleValue(body, "lockscope_findings{code=\"no_ttl\",severity=\"critical\"}") == 3;
        },
        20000);
    QVERIFY2(ok, body.constData());
    QCOMPARE(sampleValue(body, "lockscope_up"), 1.0);
}

void TestExporter::badOptionsExitWithoutWriting()
{
    QTemporaryDir home;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("HOME"), home.path());
    QFile unsupported(home.filePath(QStringLiteral("web.yml")));
    QVERIFY(unsupported.open(QIODevice::WriteOnly));
    unsupported.write(
        "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  cipher_suites: TLS_AES_128_GCM_SHA256\n");
    unsupported.close();
    // A port taken by another listener.
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost));
    struct Case {
        QStringList args;
        const char *says;
        int code;
    };
    const QList<Case> cases{
        {{QStringLiteral("--listen"), QStringLiteral("nope")}, "--listen needs HOST:PORT", 1},
        {{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:99999")}, "--listen needs HOST:PORT", 1},
        {{QStringLiteral("--listen"), QStringLiteral("example.org:9464")}, "is not an IP address", 1},
        {{QStringLiteral("--group"), QStringLiteral("orders:([=x")},
         "--group 'orders:([=x': the regular expression is not valid",
         1},
        {{QStringLiteral("--group"), QStringLiteral("orders")}, "--group needs REGEX=NAME", 1},
        {{QStringLiteral("--max-groups"), QStringLiteral("0")}, "--max-groups must be", 1},
        {{QStringLiteral("--web-config"), home.filePath(QStringLiteral("missing.yml"))}, "--web-config", 1},
        {{QStringLiteral("--web-config"), unsupported.fileName()},
         "'cipher_suites' under tls_server_config is not supported",
         1},
        {{QStringLiteral("--enable-notifications")}, "--enable-notifications does not apply to 'serve'", 1},
        {{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())},
         "--listen 127.0.0.1:",
         2},
    };
    for (const Case &c : cases) {
        const ProcessResult r = runProcess(
            kCli, QStringList{QStringLiteral("--url"), m_server.url(), QStringLiteral("serve")} + c.args, 15000, env);
        QVERIFY2(r.finished && r.exitCode == c.code && r.err.contains(c.says),
                 qPrintable(c.args.join(QLatin1Char(' ')) + QStringLiteral(": ") + r.describe()));
    }
    // Nothing written anywhere: no audit log, no settings, nothing in the home directory.
    QCOMPARE(QDir(home.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{QStringLiteral("web.yml")});
}

void TestExporter::tlsAndBasicAuth()
{
    if (QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty())
        QSKIP("openssl is not installed (Debian: apt-get install openssl)");
    QTemporaryDir dir;
    const ProcessResult cert = runProcess(
        QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
         QStringLiteral("-nodes"), QStringLiteral("-keyout"), dir.filePath(QStringLiteral("server.key")),
         QStringLiteral("-out"), dir.filePath(QStringLiteral("server.crt")), QStringLiteral("-days"),
         QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1")},
        60000);
    QVERIFY2(cert.exitCode == 0, qPrintable(cert.describe()));
    QFile config(dir.filePath(QStringLiteral("web.yml")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: " +
        WebConfig::hashBcrypt("scrape-me", 6) + "\n");
    config.close();
    Serve serve({QStringLiteral("--url"), m_server.url(), QStringLiteral("serve"), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0"), QStringLiteral("--web-config"), config.fileName()});
    const quint16 port = serve.waitForPort();
    QVERIFY2(port != 0, serve.err().constData());
    QVERIFY(serve.err().contains("https://127.0.0.1:") && serve.err().contains("(basic auth)"));
    const QUrl url(QStringLiteral("https://127.0.0.1:%1/metrics").arg(port));
    QCOMPARE(httpGet(url, {}, true).status, 401);
    QCOMPARE(httpGet(url, {{"Authorization", "Basic " + QByteArray("prometheus:wrong").toBase64()}}, true).status, 401);
    const HttpResult ok =
        httpGet(url, {{"Authorization", "Basic " + QByteArray("prometheus:scrape-me").toBase64()}}, true);
    QCOMPARE(ok.status, 200);
    QVERIFY(ok.body.contains("lockscope_up "));
    // Plain HTTP on the TLS port gets nothing.
    QVERIFY(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port))).status != 200);
}

void TestExporter::scanMetricsCountTheLocksThePassFound()
{
    // lockscope_scan_locks_found said 0 after the first pass, live or polling: it was counted as
    // the scan ended, before the locks it found had been read. It says the pass's locks once
    // their reads have landed.
    SyncClient admin(m_server.endpoint(), "exporter-test-admin");
    QVERIFY(admin.open());
    admin.flushall();
    for (int i = 0; i < 20; ++i)
        admin.cmd(
            {"HSET", QByteArray("scanned:") + QByteArray::number(i), "8743c9c0-7421-469a-addb-44fb92259a1b:1", "1"});
    for (int i = 0; i < 30; ++i)
        admin.cmd({"SET", QByteArray("other:") + QByteArray::number(i), "x"});
    Serve serve({QStringLiteral("--url"), m_server.url(), QStringLiteral("serve"), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0")});
    const quint16 port = serve.waitForPort();
    QVERIFY2(port != 0, serve.err().constData());
    const QUrl metricsUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
    QVERIFY2(waitUntil([&] { return sampleValue(httpGet(metricsUrl).body, "lockscope_scan_passes_total") >= 1; }),
             serve.err().constData());
    QVERIFY2(waitUntil([&] { return sampleValue(httpGet(metricsUrl).body, "lockscope_scan_locks_found") == 20; }),
             httpGet(metricsUrl).body.constData());
    QCOMPARE(sampleValue(httpGet(metricsUrl).body, "lockscope_scan_keys"), 50.0);
}

void TestExporter::sigtermEndsAtOnce()
{
    Serve serve({QStringLiteral("--url"), m_server.url(), QStringLiteral("serve"), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0")});
    QVERIFY(serve.waitForPort() != 0);
    QElapsedTimer clock;
    clock.start();
    ::kill(pid_t(serve.process().processId()), SIGTERM);
    QVERIFY(serve.process().waitForFinished(5000));
    qInfo("serve ended %lld ms after SIGTERM", clock.elapsed());
    QCOMPARE(serve.process().exitCode(), 128 + SIGTERM);
    // Redis unreachable: serve keeps serving with lockscope_up 0 (it is an exporter).
    Serve orphan({QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(RedisServerProcess::freePort()),
                  QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    const quint16 port = orphan.waitForPort();
    QVERIFY2(port != 0, orphan.err().constData());
    QTest::qWait(1500);
    QCOMPARE(orphan.process().state(), QProcess::Running);
    QCOMPARE(sampleValue(httpGet(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port))).body, "lockscope_up"),
             0.0);
    ::kill(pid_t(orphan.process().processId()), SIGINT);
    QVERIFY(orphan.process().waitForFinished(5000));
    QCOMPARE(orphan.process().exitCode(), 128 + SIGINT);
}

QTEST_GUILESS_MAIN(TestExporter)
#include "tst_exporter.moc"
