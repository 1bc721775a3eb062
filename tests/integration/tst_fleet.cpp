// One exporter for a fleet (issue 40): `serve --targets FILE --password-file FILE` against real
// redis-servers on loopback (one with a password, one that is not there, one frozen with
// SIGSTOP). Each /scrape?target= has its own locks and the file's labels; a down target answers
// lockscope_up 0 within 5 s and never delays the others; a target outside the file is refused
// (403; no target: 400); the targets file is re-read on change and on SIGHUP; no password is in
// any output; a password file others can read is refused; a targets file may be file_sd YAML.

#include "demo/redisserverprocess.h"
#include "linereader.h"
#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace lockscope;
using Reader = lockscope::test::LineReader;
using lockscope::test::SyncClient;

namespace
{
const QByteArray kPassword = "fleet-s3cret-Pw";

struct Reply {
    int status = 0;
    QByteArray body;
    qint64 ms = 0;
};
} // namespace

class TestFleet : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void oneExporterForEveryTarget();
    void passwordFileOthersCanReadIsRefused();
    void doctorAndListAcrossTargets();
    void tlsTargetWithItsOwnCa();
    void yamlTargetsFile();

private:
    std::unique_ptr<Reader> cli(const QStringList &args);
    static Reply get(const QString &url);
    static Reply scrape(const QString &at, const QString &target);
    static double sample(const QByteArray &metrics, const QByteArray &series);
    /** Where `serve` says it serves ("127.0.0.1:PORT"), within 10 s; empty otherwise. Its standard
     *  error so far is appended to `*err`. */
    static QString servedAt(Reader &serve, QByteArray *err);
    static bool writeJson(const QString &path, const QJsonDocument &doc);
    QJsonDocument targetsDoc(const QStringList &first, const QStringList &second) const;

    RedisServerProcess m_plain;
    RedisServerProcess m_secured;
    RedisServerProcess m_frozen;
    QTemporaryDir m_dir;
};

std::unique_ptr<Reader> TestFleet::cli(const QStringList &args)
{
    auto r = std::make_unique<Reader>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("LOCKSCOPE_PASSWORD"));
    env.remove(QStringLiteral("LOCKSCOPE_URL"));
    r->process.setProcessEnvironment(env);
    r->process.start(QStringLiteral(LOCKSCOPE_CLI_PATH), args);
    return r;
}

Reply TestFleet::get(const QString &url)
{
    QNetworkAccessManager nam;
    QElapsedTimer t;
    t.start();
    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(url)));
    (void)QTest::qWaitFor([reply] { return reply->isFinished(); }, 10000);
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.ms = t.elapsed();
    reply->deleteLater();
    return r;
}

Reply TestFleet::scrape(const QString &at, const QString &target)
{
    // URL-encoded, as Prometheus sends it (the target's "://" and ":" included).
    return get(
        QStringLiteral("http://%1/scrape?target=%2").arg(at, QString::fromLatin1(QUrl::toPercentEncoding(target))));
}

double TestFleet::sample(const QByteArray &metrics, const QByteArray &series)
{
    for (const QByteArray &line : metrics.split('\n'))
        if (line.startsWith(series + ' '))
            return line.mid(series.size() + 1).toDouble();
    return -1.0;
}

QString TestFleet::servedAt(Reader &serve, QByteArray *err)
{
    static const QRegularExpression at(QStringLiteral("on http://(127\\.0\\.0\\.1:\\d+)/scrape"));
    QString found;
    (void)QTest::qWaitFor(
        [&] {
            serve.process.waitForReadyRead(100);
            *err += serve.process.readAllStandardError();
            const QRegularExpressionMatch m = at.match(QString::fromUtf8(*err));
            if (m.hasMatch())
                found = m.captured(1);
            return !found.isEmpty();
        },
        10000);
    return found;
}

bool TestFleet::writeJson(const QString &path, const QJsonDocument &doc)
{
    // As a configuration tool does it: a new file renamed over the old one.
    QFile f(path + QStringLiteral(".new"));
    if (!f.open(QIODevice::WriteOnly) || f.write(doc.toJson()) < 0)
        return false;
    f.close();
    QFile::remove(path);
    return QFile::rename(path + QStringLiteral(".new"), path);
}

QJsonDocument TestFleet::targetsDoc(const QStringList &first, const QStringList &second) const
{
    return QJsonDocument(QJsonArray{
        QJsonObject{{QStringLiteral("targets"), QJsonArray::fromStringList(first)},
                    {QStringLiteral("labels"), QJsonObject{{QStringLiteral("env"), QStringLiteral("prod")},
                                                           {QStringLiteral("__meta_ignored"), QStringLiteral("x")}}}},
        QJsonObject{{QStringLiteral("targets"), QJsonArray::fromStringList(second)},
                    {QStringLiteral("labels"), QJsonObject{{QStringLiteral("env"), QStringLiteral("staging")}}}}});
}

void TestFleet::initTestCase()
{
    if (RedisServerProcess::findExecutable().isEmpty())
        QSKIP("redis-server is needed");
    QVERIFY(m_dir.isValid());
    QString error;
    QVERIFY2(m_plain.start(10000, &error), qPrintable(error));
    QVERIFY2(m_secured.start(10000, &error), qPrintable(error));
    {
        SyncClient admin(m_secured.endpoint());
        QVERIFY(admin.open());
        QVERIFY(!admin.cmd({"CONFIG", "SET", "requirepass", kPassword}).isError());
    }
    QVERIFY2(m_frozen.start(10000, &error), qPrintable(error));
}

void TestFleet::cleanupTestCase()
{
    if (m_frozen.isRunning())
        ::kill(pid_t(m_frozen.pid()), SIGCONT);
    m_plain.stop();
    m_secured.stop();
    m_frozen.stop();
}

void TestFleet::oneExporterForEveryTarget()
{
    // A lock on each server.
    for (RedisServerProcess *s : {&m_plain, &m_secured, &m_frozen}) {
        RedisEndpoint e = s->endpoint();
        if (s == &m_secured)
            e.setPassword(QString::fromLatin1(kPassword));
        SyncClient c(e);
        QVERIFY(c.open());
        const QByteArray name = s == &m_plain ? "plain-lock" : s == &m_secured ? "secured-lock" : "frozen-lock";
        QVERIFY(!c.cmd({"HSET", name, "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:1", "1"}).isError());
        QVERIFY(!c.cmd({"PEXPIRE", name, "600000"}).isError());
    }
    const QString missing = QStringLiteral("redis://127.0.0.1:%1").arg(RedisServerProcess::freePort());
    const QString targets = m_dir.filePath(QStringLiteral("targets.json"));
    const QString passwords = m_dir.filePath(QStringLiteral("passwords.json"));
    QVERIFY(writeJson(targets, targetsDoc({m_plain.url(), m_secured.url()}, {m_frozen.url(), missing})));
    QVERIFY(writeJson(passwords, QJsonDocument(QJsonObject{{m_secured.url(), QString::fromLatin1(kPassword)}})));
    QVERIFY(QFile::setPermissions(passwords, QFileDevice::ReadOwner | QFileDevice::WriteOwner));

    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--password-file"),
                      passwords, QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    QByteArray err;
    const QString at = servedAt(*serve, &err);
    QVERIFY2(!at.isEmpty(), err.constData());

    // Each target's own locks and labels; the server with a password too.
    QElapsedTimer since;
    since.start();
    auto upOf = [&](const QString &target, const QByteArray &env) {
        return sample(scrape(at, target).body, "lockscope_up{env=\"" + env + "\"}");
    };
    QVERIFY(
        QTest::qWaitFor([&] { return upOf(m_plain.url(), "prod") == 1 && upOf(m_secured.url(), "prod") == 1; }, 10000));
    QTRY_VERIFY_WITH_TIMEOUT(
        sample(scrape(at, m_plain.url()).body, "lockscope_held_locks{env=\"prod\",group=\"plain-lock\"}") == 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(
        sample(scrape(at, m_secured.url()).body, "lockscope_held_locks{env=\"prod\",group=\"secured-lock\"}") == 1,
        5000);
    const Reply plain = scrape(at, m_plain.url());
    QVERIFY2(!plain.body.contains("secured-lock") && !plain.body.contains("frozen-lock"), plain.body.constData());
    QVERIFY(!plain.body.contains("__meta_ignored"));
    // The target that is not there: lockscope_up 0 within 5 s, with the reason.
    QVERIFY2(since.elapsed() < 5000 || upOf(missing, "staging") == 0, "late");
    QTRY_COMPARE_WITH_TIMEOUT(upOf(missing, "staging"), 0.0, 5000);
    const Reply down = scrape(at, missing);
    QVERIFY2(down.body.contains("lockscope_last_error_info{env=\"staging\",reason="), down.body.constData());

    // Refused: a target outside the file (a server-side request forgery otherwise), none at all.
    QCOMPARE(scrape(at, QStringLiteral("redis://127.0.0.1:1")).status, 403);
    QCOMPARE(get(QStringLiteral("http://%1/scrape").arg(at)).status, 400);
    // The exporter's own metrics.
    const Reply self = get(QStringLiteral("http://%1/metrics").arg(at));
    QCOMPARE(sample(self.body, "lockscope_exporter_targets"), 4.0);

    // A frozen target: up 0 within 5 s, and the others still answer at once.
    QTRY_COMPARE_WITH_TIMEOUT(upOf(m_frozen.url(), "staging"), 1.0, 5000);
    QCOMPARE(::kill(pid_t(m_frozen.pid()), SIGSTOP), 0);
    since.restart();
    QTRY_COMPARE_WITH_TIMEOUT(upOf(m_frozen.url(), "staging"), 0.0, 8000);
    qInfo("frozen target down after %lld ms", since.elapsed());
    QVERIFY2(since.elapsed() < 6000, qPrintable(QString::number(since.elapsed())));
    const Reply fast = scrape(at, m_plain.url());
    QCOMPARE(sample(fast.body, "lockscope_up{env=\"prod\"}"), 1.0);
    QVERIFY2(fast.ms < 1000, qPrintable(QString::number(fast.ms)));
    QVERIFY(scrape(at, m_frozen.url()).ms < 1000);
    QCOMPARE(::kill(pid_t(m_frozen.pid()), SIGCONT), 0);

    // The targets file changes: the plain server goes, nothing else is restarted.
    QVERIFY(writeJson(targets, targetsDoc({m_secured.url()}, {m_frozen.url(), missing})));
    QTRY_COMPARE_WITH_TIMEOUT(scrape(at, m_plain.url()).status, 403, 5000);
    QCOMPARE(scrape(at, m_secured.url()).status, 200);
    // SIGHUP: read again (the plain server is back), and the exporter keeps serving.
    QVERIFY(writeJson(targets, targetsDoc({m_plain.url(), m_secured.url()}, {m_frozen.url()})));
    QCOMPARE(::kill(pid_t(serve->process.processId()), SIGHUP), 0);
    QTRY_COMPARE_WITH_TIMEOUT(scrape(at, m_plain.url()).status, 200, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(scrape(at, missing).status, 403, 5000);
    QCOMPARE(serve->process.state(), QProcess::Running);
    QTRY_VERIFY_WITH_TIMEOUT(
        sample(get(QStringLiteral("http://%1/metrics").arg(at)).body, "lockscope_exporter_target_reloads_total") >= 1,
        5000);

    // No password anywhere: scrapes, the exporter's own metrics, its log.
    serve->process.terminate();
    QVERIFY(serve->process.waitForFinished(5000));
    err += serve->process.readAllStandardError() + serve->process.readAllStandardOutput();
    QVERIFY2(!err.contains(kPassword), err.constData());
    QVERIFY(!self.body.contains(kPassword));
    QVERIFY(!down.body.contains(kPassword));
}

void TestFleet::passwordFileOthersCanReadIsRefused()
{
    const QString targets = m_dir.filePath(QStringLiteral("targets2.json"));
    const QString passwords = m_dir.filePath(QStringLiteral("passwords2.json"));
    QVERIFY(writeJson(targets, targetsDoc({m_secured.url()}, {})));
    QVERIFY(writeJson(passwords, QJsonDocument(QJsonObject{{m_secured.url(), QString::fromLatin1(kPassword)}})));
    QVERIFY(QFile::setPermissions(passwords, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                                                 QFileDevice::ReadOther));
    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--password-file"),
                      passwords, QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")});
    QVERIFY(serve->process.waitForFinished(10000));
    QCOMPARE(serve->process.exitCode(), 1);
    const QByteArray err = serve->process.readAllStandardError();
    QVERIFY2(err.contains("can be read by others") && err.contains("chmod 600"), err.constData());
    QVERIFY(!err.contains(kPassword));
    // A target with a password in its URL is refused too (the targets file is no secret).
    QVERIFY(writeJson(
        targets,
        targetsDoc(
            {QStringLiteral("redis://:%1@127.0.0.1:%2").arg(QString::fromLatin1(kPassword)).arg(m_secured.port())},
            {})));
    auto again = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:0")});
    QVERIFY(again->process.waitForFinished(10000));
    QCOMPARE(again->process.exitCode(), 1);
    const QByteArray err2 = again->process.readAllStandardError();
    QVERIFY2(err2.contains("password in its URL") && !err2.contains(kPassword), err2.constData());
}

void TestFleet::doctorAndListAcrossTargets()
{
    // A lock without TTL on the plain server (no_ttl), the secured one fine, one target missing.
    {
        SyncClient c(m_plain.endpoint());
        QVERIFY(c.open());
        QVERIFY(!c.cmd({"HSET", "forever", "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:1", "1"}).isError());
    }
    const QString missing = QStringLiteral("redis://127.0.0.1:%1").arg(RedisServerProcess::freePort());
    const QString targets = m_dir.filePath(QStringLiteral("targets3.json"));
    const QString passwords = m_dir.filePath(QStringLiteral("passwords3.json"));
    QVERIFY(writeJson(targets, targetsDoc({m_plain.url(), m_secured.url()}, {missing})));
    QVERIFY(writeJson(passwords, QJsonDocument(QJsonObject{{m_secured.url(), QString::fromLatin1(kPassword)}})));
    QVERIFY(QFile::setPermissions(passwords, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    auto doctor = cli({QStringLiteral("doctor"), QStringLiteral("--targets"), targets,
                       QStringLiteral("--password-file"), passwords, QStringLiteral("--json")});
    QVERIFY(doctor->process.waitForFinished(60000));
    const QByteArray out = doctor->process.readAllStandardOutput();
    const QByteArray err = doctor->process.readAllStandardError();
    QCOMPARE(doctor->process.exitCode(), 2); // a target unreachable is the worst outcome here
    bool noTtl = false;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value(QStringLiteral("code")).toString() == QLatin1String("no_ttl"))
            noTtl = o.value(QStringLiteral("target")).toString() == m_plain.url();
    }
    QVERIFY2(noTtl, out.constData());
    QVERIFY2(err.contains("unreachable: " + missing.toUtf8()), err.constData());
    QVERIFY(!out.contains(kPassword) && !err.contains(kPassword));
    // Without the missing one: the finding decides (4).
    QVERIFY(writeJson(targets, targetsDoc({m_plain.url(), m_secured.url()}, {})));
    auto again = cli(
        {QStringLiteral("doctor"), QStringLiteral("--targets"), targets, QStringLiteral("--password-file"), passwords});
    QVERIFY(again->process.waitForFinished(60000));
    QCOMPARE(again->process.exitCode(), 4);
    // list: each row prefixed with its target.
    auto list = cli(
        {QStringLiteral("list"), QStringLiteral("--targets"), targets, QStringLiteral("--password-file"), passwords});
    QVERIFY(list->process.waitForFinished(60000));
    QCOMPARE(list->process.exitCode(), 0);
    const QString rows = QString::fromUtf8(list->process.readAllStandardOutput());
    QVERIFY2(rows.contains(m_plain.url() + QLatin1String("  forever")), qPrintable(rows));
    QVERIFY2(rows.contains(m_secured.url() + QLatin1String("  ")), qPrintable(rows));
}

void TestFleet::tlsTargetWithItsOwnCa()
{
    // A rediss:// target whose certificate a private CA signed: the file gives the CA
    // (__tls_ca_file, a meta label: not on the series).
    if (QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty())
        QSKIP("openssl is not installed");
    const QString dir = m_dir.filePath(QStringLiteral("tls"));
    QVERIFY(QDir().mkpath(dir));
    auto openssl = [](const QStringList &args) {
        return lockscope::test::runProcess(QStringLiteral("openssl"), args, 60000).exitCode == 0;
    };
    const QString ca = dir + QStringLiteral("/ca.crt"), caKey = dir + QStringLiteral("/ca.key");
    const QString crt = dir + QStringLiteral("/server.crt"), key = dir + QStringLiteral("/server.key");
    const QString csr = dir + QStringLiteral("/server.csr"), ext = dir + QStringLiteral("/server.ext");
    QVERIFY(openssl({QStringLiteral("req"),      QStringLiteral("-x509"),
                     QStringLiteral("-new"),     QStringLiteral("-nodes"),
                     QStringLiteral("-newkey"),  QStringLiteral("ec"),
                     QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                     QStringLiteral("-keyout"),  caKey,
                     QStringLiteral("-out"),     ca,
                     QStringLiteral("-days"),    QStringLiteral("2"),
                     QStringLiteral("-subj"),    QStringLiteral("/CN=LockScope Fleet Test CA"),
                     QStringLiteral("-addext"),  QStringLiteral("basicConstraints=critical,CA:TRUE"),
                     QStringLiteral("-addext"),  QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")}));
    {
        QFile f(ext);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    }
    QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-new"), QStringLiteral("-nodes"), QStringLiteral("-newkey"),
                     QStringLiteral("ec"), QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                     QStringLiteral("-keyout"), key, QStringLiteral("-out"), csr, QStringLiteral("-subj"),
                     QStringLiteral("/CN=localhost")}));
    QVERIFY(openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), csr, QStringLiteral("-CA"),
                     ca, QStringLiteral("-CAkey"), caKey, QStringLiteral("-CAcreateserial"), QStringLiteral("-days"),
                     QStringLiteral("2"), QStringLiteral("-out"), crt, QStringLiteral("-extfile"), ext}));
    RedisServerProcess tls;
    tls.setTls(crt, key, ca);
    QString error;
    QVERIFY2(tls.start(10000, &error), qPrintable(error));
    const QString targets = m_dir.filePath(QStringLiteral("targets-tls.json"));
    QVERIFY(
        writeJson(targets, QJsonDocument(QJsonArray{QJsonObject{
                               {QStringLiteral("targets"), QJsonArray{tls.url()}},
                               {QStringLiteral("labels"), QJsonObject{{QStringLiteral("env"), QStringLiteral("tls")},
                                                                      {QStringLiteral("__tls_ca_file"), ca}}}}})));
    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:0")});
    QByteArray err;
    const QString at = servedAt(*serve, &err);
    QVERIFY2(!at.isEmpty(), err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(sample(scrape(at, tls.url()).body, "lockscope_up{env=\"tls\"}"), 1.0, 10000);
    QVERIFY(!scrape(at, tls.url()).body.contains("__tls"));
    // The CLI across targets passes the same CA on.
    auto list = cli({QStringLiteral("list"), QStringLiteral("--targets"), targets});
    QVERIFY(list->process.waitForFinished(30000));
    QVERIFY2(list->process.exitCode() == 0, list->process.readAllStandardError().constData());
    serve->process.terminate();
    serve->process.waitForFinished(5000);
    tls.stop();
}

void TestFleet::yamlTargetsFile()
{
    // Prometheus' file_sd YAML, as a platform team writes it: comments, an unquoted number as a
    // label value (read as the string Prometheus reads), a quoted URL, a meta label.
    const QString targets = m_dir.filePath(QStringLiteral("targets.yml"));
    {
        QFile f(targets);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("# the payments Redis, region one\n"
                               "- targets:\n"
                               "    - \"%1\"\n"
                               "  labels:\n"
                               "    env: yaml-prod\n"
                               "    tier: 1\n"
                               "    __meta_owner: payments\n"
                               "- targets: [%2]\n")
                    .arg(m_plain.url(), m_frozen.url())
                    .toUtf8());
    }
    auto serve = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--listen"),
                      QStringLiteral("127.0.0.1:0")});
    QByteArray err;
    const QString at = servedAt(*serve, &err);
    QVERIFY2(!at.isEmpty(), err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(sample(scrape(at, m_plain.url()).body, "lockscope_up{env=\"yaml-prod\",tier=\"1\"}"), 1.0,
                              10000);
    QTRY_COMPARE_WITH_TIMEOUT(sample(scrape(at, m_frozen.url()).body, "lockscope_up"), 1.0, 10000);
    QCOMPARE(scrape(at, m_secured.url()).status, 403);
    QVERIFY(!scrape(at, m_plain.url()).body.contains("__meta_owner"));
    // The same file for the CLI's fleet runs.
    auto list = cli({QStringLiteral("list"), QStringLiteral("--targets"), targets});
    QVERIFY(list->process.waitForFinished(60000));
    QCOMPARE(list->process.exitCode(), 0);
    // A broken edit is refused with its line, and the exporter keeps the targets it had.
    {
        QFile f(targets + QStringLiteral(".new"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("- targets:\n    - redis://127.0.0.1:1\n  labels: {env: [unclosed\n");
        f.close();
        QFile::remove(targets);
        QVERIFY(QFile::rename(targets + QStringLiteral(".new"), targets));
    }
    QTRY_VERIFY_WITH_TIMEOUT(sample(get(QStringLiteral("http://%1/metrics").arg(at)).body,
                                    "lockscope_exporter_target_reload_failures_total") >= 1,
                             5000);
    QCOMPARE(scrape(at, m_plain.url()).status, 200);
    serve->process.terminate();
    QVERIFY(serve->process.waitForFinished(5000));
    err += serve->process.readAllStandardError();
    QVERIFY2(err.contains("not YAML") && err.contains("line "), err.constData());
    // At start, the same error ends the run (exit 1) and says where.
    auto broken = cli({QStringLiteral("serve"), QStringLiteral("--targets"), targets, QStringLiteral("--listen"),
                       QStringLiteral("127.0.0.1:0")});
    QVERIFY(broken->process.waitForFinished(10000));
    QCOMPARE(broken->process.exitCode(), 1);
    const QByteArray brokenErr = broken->process.readAllStandardError();
    QVERIFY2(brokenErr.contains(targets.toUtf8()) && brokenErr.contains("line "), brokenErr.constData());
}

QTEST_GUILESS_MAIN(TestFleet)
#include "tst_fleet.moc"
