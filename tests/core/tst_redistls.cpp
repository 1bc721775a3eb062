// rediss:// against real TLS-only redis-servers (`--port 0 --tls-port P`). The test makes its own
// CA, server and client certificates with openssl in a temporary directory, then checks that
// LockScope connects with the CA, refuses an untrusted or misnamed server with a sentence that
// says what to do (unless --tls-insecure), authenticates with a client certificate when the
// server requires one, and that lockscope-cli does the same with --tls-ca / --tls-insecure.

#include "demo/redisserverprocess.h"
#include "endpoint/redisendpoint.h"
#include "endpoint/redistlsoptions.h"
#include "endpoint/tlsadvicewords.h"
#include "redis/redisconnection.h"
#include "session/locksession.h"

#include "locksessiontestpeer.h"
#include "testsupport.h"

#include <QFile>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace lockscope;
using lockscope::test::ProcessResult;
using lockscope::test::SyncClient;
using lockscope::test::waitUntil;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

/** Outcome of one connection attempt without reconnecting: ready, or the error sentence. */
struct Attempt {
    bool ready = false;
    QString error;
};

Attempt connectOnce(const RedisEndpoint &endpoint, int timeoutMs = 10000)
{
    RedisConnection conn(endpoint);
    conn.setAutoReconnect(false);
    conn.setConnectTimeoutMs(timeoutMs / 2);
    Attempt a;
    bool lost = false;
    QObject::connect(&conn, &RedisConnection::connectionLost, &conn, [&](const QString &reason) {
        lost = true;
        a.error = reason;
    });
    conn.open();
    waitUntil([&] { return conn.isReady() || lost; }, timeoutMs);
    if (conn.isReady()) {
        // The server may still refuse us right after the handshake (TLS 1.3 client-certificate alerts
        // arrive with the first reply): only a real answer counts.
        bool answered = false;
        RedisReply reply;
        conn.send({"PING"}, nullptr, [&](const RedisReply &r) {
            reply = r;
            answered = true;
        });
        waitUntil([&] { return answered; }, timeoutMs);
        a.ready = answered && reply.toByteArray() == "PONG";
        if (!a.ready)
            a.error = conn.lastError().isEmpty() ? reply.errorMessage() : conn.lastError();
    }
    return a;
}

} // namespace

class TestRedisTls : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();

    void connectsWithCaAndRunsCommands();
    void hostNameLocalhostMatches();
    void untrustedServerFailsWithAdvice();
    void nameMismatchFailsUnlessInsecureOrNamed();
    void clientCertificateRequired();
    void plainUrlOnTlsPortSaysUseRediss();
    void badFilesAreSentences();
    void lockSessionWatchesOverTls();
    void cliUsesTlsOptions();

private:
    bool openssl(const QStringList &args);
    QString path(const QString &name) const { return m_dir.filePath(name); }
    bool makeCertificate(const QString &name, const QString &subject, const QString &extensions);
    RedisEndpoint endpointFor(const RedisServerProcess &server, const RedisTlsOptions &tls,
                              const QString &host = QStringLiteral("127.0.0.1")) const;

    QTemporaryDir m_dir;
    RedisServerProcess m_server; ///< SAN localhost + 127.0.0.1, client certificates optional
    RedisTlsOptions m_withCa;
};

bool TestRedisTls::openssl(const QStringList &args)
{
    const ProcessResult r = test::runProcess(QStringLiteral("openssl"), args, 60000);
    if (r.exitCode != 0)
        qWarning("openssl %s failed: %s", qPrintable(args.join(QLatin1Char(' '))), qPrintable(r.describe()));
    return r.exitCode == 0;
}

/** `name`.key + `name`.crt signed by the test CA, with `extensions` (an openssl extension file's lines). */
bool TestRedisTls::makeCertificate(const QString &name, const QString &subject, const QString &extensions)
{
    QFile ext(path(name + QStringLiteral(".ext")));
    if (!ext.open(QIODevice::WriteOnly))
        return false;
    ext.write(extensions.toUtf8());
    ext.close();
    return openssl({QStringLiteral("req"), QStringLiteral("-new"), QStringLiteral("-nodes"), QStringLiteral("-newkey"),
                    QStringLiteral("ec"), QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                    QStringLiteral("-keyout"), path(name + QStringLiteral(".key")), QStringLiteral("-out"),
                    path(name + QStringLiteral(".csr")), QStringLiteral("-subj"), subject}) &&
           openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                    path(name + QStringLiteral(".csr")), QStringLiteral("-CA"), path(QStringLiteral("ca.crt")),
                    QStringLiteral("-CAkey"), path(QStringLiteral("ca.key")), QStringLiteral("-CAcreateserial"),
                    QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-out"),
                    path(name + QStringLiteral(".crt")), QStringLiteral("-extfile"), ext.fileName()});
}

RedisEndpoint TestRedisTls::endpointFor(const RedisServerProcess &server, const RedisTlsOptions &tls,
                                        const QString &host) const
{
    RedisEndpoint ep = RedisEndpoint::parse(QStringLiteral("rediss://%1:%2").arg(host).arg(server.port()));
    ep.setPassword(QString());
    ep.setTlsOptions(tls);
    return ep;
}

void TestRedisTls::initTestCase()
{
    // The sentences checked here on core objects are the CLI's: core names the TLS settings in the
    // words the front end installs (core names no flags), and lockscope-cli installs its flags.
    lockscope::TlsAdviceWords::setNamer(&lockscope::TlsAdviceWords::cliName);
    qunsetenv("LOCKSCOPE_PASSWORD");
    qunsetenv("LOCKSCOPE_USER");
    if (!QSslSocket::supportsSsl())
        QSKIP("Qt has no TLS backend here");
    if (QStandardPaths::findExecutable(QStringLiteral("openssl")).isEmpty())
        QSKIP("openssl is not installed (Debian: apt-get install openssl)");
    QVERIFY(m_dir.isValid());

    // A CA, a server certificate for localhost/127.0.0.1, one for another name, and a client certificate.
    QVERIFY(openssl({QStringLiteral("req"),      QStringLiteral("-x509"),
                     QStringLiteral("-new"),     QStringLiteral("-nodes"),
                     QStringLiteral("-newkey"),  QStringLiteral("ec"),
                     QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                     QStringLiteral("-keyout"),  path(QStringLiteral("ca.key")),
                     QStringLiteral("-out"),     path(QStringLiteral("ca.crt")),
                     QStringLiteral("-days"),    QStringLiteral("2"),
                     QStringLiteral("-subj"),    QStringLiteral("/CN=LockScope Test CA"),
                     QStringLiteral("-addext"),  QStringLiteral("basicConstraints=critical,CA:TRUE"),
                     QStringLiteral("-addext"),  QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")}));
    QVERIFY(
        makeCertificate(QStringLiteral("server"), QStringLiteral("/CN=localhost"),
                        QStringLiteral("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")));
    QVERIFY(
        makeCertificate(QStringLiteral("other"), QStringLiteral("/CN=redis.internal.example"),
                        QStringLiteral("subjectAltName=DNS:redis.internal.example\nextendedKeyUsage=serverAuth\n")));
    QVERIFY(makeCertificate(QStringLiteral("client"), QStringLiteral("/CN=lockscope-viewer"),
                            QStringLiteral("extendedKeyUsage=clientAuth\n")));
    // A self-signed certificate that no CA vouches for, and an encrypted copy of the client key.
    QVERIFY(openssl({QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-new"), QStringLiteral("-nodes"),
                     QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                     QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-keyout"),
                     path(QStringLiteral("self.key")), QStringLiteral("-out"), path(QStringLiteral("self.crt")),
                     QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                     QStringLiteral("/CN=localhost")}));
    QVERIFY(openssl({QStringLiteral("pkey"), QStringLiteral("-in"), path(QStringLiteral("client.key")),
                     QStringLiteral("-out"), path(QStringLiteral("client-enc.key")), QStringLiteral("-aes256"),
                     QStringLiteral("-passout"), QStringLiteral("pass:not-this")}));

    m_withCa.setCaFile(path(QStringLiteral("ca.crt")));
    m_server.setTls(path(QStringLiteral("server.crt")), path(QStringLiteral("server.key")),
                    path(QStringLiteral("ca.crt")), QStringLiteral("optional"), m_withCa);
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    QVERIFY(m_server.url().startsWith(QLatin1String("rediss://")));
}

void TestRedisTls::cleanupTestCase()
{
    m_server.stop();
}

void TestRedisTls::connectsWithCaAndRunsCommands()
{
    SyncClient client(m_server.endpoint());
    QVERIFY2(client.open(), qPrintable(client.connection()->lastError()));
    QCOMPARE(client.cmd({"SET", "tls:key", QByteArray("bin\0ary", 7)}).toByteArray(), QByteArray("OK"));
    QCOMPARE(client.get("tls:key"), QByteArray("bin\0ary", 7));
    // Pipelining and larger replies go through the TLS layer unchanged.
    QList<QList<QByteArray>> commands;
    for (int i = 0; i < 200; ++i)
        commands << QList<QByteArray>{"SET", "tls:n:" + QByteArray::number(i), QByteArray(1000, char('a' + i % 26))};
    QCOMPARE(client.pipeline(commands).size(), 200);
    QCOMPARE(client.get("tls:n:199"), QByteArray(1000, char('a' + 199 % 26)));
    QCOMPARE(client.cmd({"FLUSHALL"}).toByteArray(), QByteArray("OK"));
}

void TestRedisTls::hostNameLocalhostMatches()
{
    const Attempt a = connectOnce(endpointFor(m_server, m_withCa, QStringLiteral("localhost")));
    QVERIFY2(a.ready, qPrintable(a.error));
}

void TestRedisTls::untrustedServerFailsWithAdvice()
{
    // No CA: the system's CAs do not know our test CA.
    const Attempt none = connectOnce(endpointFor(m_server, RedisTlsOptions()));
    QVERIFY(!none.ready);
    QVERIFY2(none.error.contains(QLatin1String("not trusted")), qPrintable(none.error));
    QVERIFY2(none.error.contains(QLatin1String("--tls-ca")), qPrintable(none.error));
    QVERIFY2(none.error.contains(QLatin1String("LockScope Test CA")), qPrintable(none.error));

    // The wrong CA (a self-signed certificate that did not sign the server's) is no better.
    RedisTlsOptions wrongCa;
    wrongCa.setCaFile(path(QStringLiteral("self.crt")));
    const Attempt wrong = connectOnce(endpointFor(m_server, wrongCa));
    QVERIFY(!wrong.ready);
    QVERIFY2(wrong.error.contains(QLatin1String("not trusted")), qPrintable(wrong.error));

    // Only when asked: insecure mode connects anyway.
    RedisTlsOptions insecure;
    insecure.setInsecure(true);
    const Attempt skipped = connectOnce(endpointFor(m_server, insecure));
    QVERIFY2(skipped.ready, qPrintable(skipped.error));
}

void TestRedisTls::nameMismatchFailsUnlessInsecureOrNamed()
{
    RedisServerProcess other;
    other.setTls(path(QStringLiteral("other.crt")), path(QStringLiteral("other.key")), path(QStringLiteral("ca.crt")),
                 QStringLiteral("no"), m_withCa);
    QString error;
    QVERIFY2(other.start(10000, &error), qPrintable(error));

    const Attempt mismatch = connectOnce(endpointFor(other, m_withCa));
    QVERIFY(!mismatch.ready);
    QVERIFY2(mismatch.error.contains(QLatin1String("'redis.internal.example'")), qPrintable(mismatch.error));
    QVERIFY2(mismatch.error.contains(QLatin1String("not for '127.0.0.1'")), qPrintable(mismatch.error));
    QVERIFY2(mismatch.error.contains(QLatin1String("--tls-server-name")), qPrintable(mismatch.error));

    RedisTlsOptions named = m_withCa;
    named.setServerName(QStringLiteral("redis.internal.example"));
    const Attempt byName = connectOnce(endpointFor(other, named));
    QVERIFY2(byName.ready, qPrintable(byName.error));

    RedisTlsOptions insecure = m_withCa;
    insecure.setInsecure(true);
    const Attempt skipped = connectOnce(endpointFor(other, insecure));
    QVERIFY2(skipped.ready, qPrintable(skipped.error));
}

void TestRedisTls::clientCertificateRequired()
{
    RedisTlsOptions withCert = m_withCa;
    withCert.setCertFile(path(QStringLiteral("client.crt")));
    withCert.setKeyFile(path(QStringLiteral("client.key")));
    RedisServerProcess strict;
    strict.setTls(path(QStringLiteral("server.crt")), path(QStringLiteral("server.key")),
                  path(QStringLiteral("ca.crt")), QStringLiteral("yes"), withCert);
    QString error;
    QVERIFY2(strict.start(10000, &error), qPrintable(error));

    const Attempt without = connectOnce(endpointFor(strict, m_withCa));
    QVERIFY(!without.ready);
    QVERIFY2(without.error.contains(QLatin1String("--tls-cert")), qPrintable(without.error));

    const Attempt with = connectOnce(endpointFor(strict, withCert));
    QVERIFY2(with.ready, qPrintable(with.error));

    // A certificate its CA did not sign is refused by the server.
    RedisTlsOptions foreign = m_withCa;
    foreign.setCertFile(path(QStringLiteral("self.crt")));
    foreign.setKeyFile(path(QStringLiteral("self.key")));
    const Attempt refused = connectOnce(endpointFor(strict, foreign));
    QVERIFY(!refused.ready);
    QVERIFY2(!refused.error.isEmpty(), "no error sentence");
}

void TestRedisTls::plainUrlOnTlsPortSaysUseRediss()
{
    const Attempt a = connectOnce(RedisEndpoint::tcp(QStringLiteral("127.0.0.1"), m_server.port()), 4000);
    QVERIFY(!a.ready);
    QVERIFY2(a.error.contains(QLatin1String("rediss://")), qPrintable(a.error));
}

void TestRedisTls::badFilesAreSentences()
{
    QString error;
    RedisTlsOptions missing;
    missing.setCaFile(path(QStringLiteral("nope.crt")));
    QVERIFY(!missing.validate(&error));
    QVERIFY2(error.contains(QLatin1String("nope.crt")) && error.contains(QLatin1String("does not exist")),
             qPrintable(error));

    RedisTlsOptions keyIsNotCa;
    keyIsNotCa.setCaFile(path(QStringLiteral("ca.key")));
    QVERIFY(!keyIsNotCa.validate(&error));
    QVERIFY2(error.contains(QLatin1String("holds no certificate")), qPrintable(error));

    RedisTlsOptions keyOnly;
    keyOnly.setKeyFile(path(QStringLiteral("client.key")));
    QVERIFY(!keyOnly.validate(&error));
    QVERIFY2(error.contains(QLatin1String("--tls-cert")), qPrintable(error));

    RedisTlsOptions certOnly;
    certOnly.setCertFile(path(QStringLiteral("client.crt")));
    QVERIFY(!certOnly.validate(&error));
    QVERIFY2(error.contains(QLatin1String("--tls-key")), qPrintable(error));

    RedisTlsOptions encrypted;
    encrypted.setCertFile(path(QStringLiteral("client.crt")));
    encrypted.setKeyFile(path(QStringLiteral("client-enc.key")));
    QVERIFY(!encrypted.validate(&error));
    QVERIFY2(error.contains(QLatin1String("encrypted")), qPrintable(error));

    // A combined PEM (certificate + key in one file) needs no --tls-key.
    QFile combined(path(QStringLiteral("combined.pem")));
    QVERIFY(combined.open(QIODevice::WriteOnly));
    for (const char *part : {"client.crt", "client.key"}) {
        QFile f(path(QString::fromLatin1(part)));
        QVERIFY(f.open(QIODevice::ReadOnly));
        combined.write(f.readAll());
    }
    combined.close();
    RedisTlsOptions both;
    both.setCertFile(combined.fileName());
    QVERIFY2(both.validate(&error), qPrintable(error));

    // A connection with unreadable files fails at once, with the same sentence.
    const Attempt a = connectOnce(endpointFor(m_server, missing));
    QVERIFY(!a.ready);
    QVERIFY2(a.error.contains(QLatin1String("does not exist")), qPrintable(a.error));
}

void TestRedisTls::lockSessionWatchesOverTls()
{
    SyncClient admin(m_server.endpoint());
    QVERIFY(admin.open());
    admin.cmd({"HSET", "tls:lock", "b983c153-7421-469a-addb-44fb92259a1b:1", "1"});
    admin.cmd({"PEXPIRE", "tls:lock", "60000"});

    LockSession::Options options;
    options.endpoint = m_server.endpoint();
    LockSession session(options);
    bool idle = false;
    connect(peer(session).monitor(), &LockMonitor::idle, this, [&] { idle = true; });
    session.start();
    QVERIFY(waitUntil([&] { return idle && peer(session).monitor()->locks().contains(QStringLiteral("tls:lock")); }));
    // Keyspace notifications arrive over the TLS pub/sub connection too.
    QTRY_COMPARE_WITH_TIMEOUT(peer(session).monitor()->mode(), LockMonitor::Mode::Live, 10000);
    admin.cmd({"DEL", "tls:lock"});
    QVERIFY(waitUntil([&] { return !peer(session).monitor()->locks().contains(QStringLiteral("tls:lock")); }));
}

void TestRedisTls::cliUsesTlsOptions()
{
    SyncClient admin(m_server.endpoint());
    QVERIFY(admin.open());
    admin.cmd({"HSET", "cli:tls", "b983c153-7421-469a-addb-44fb92259a1b:7", "2"});
    const QString url = QStringLiteral("rediss://127.0.0.1:%1").arg(m_server.port());

    ProcessResult ok =
        test::runProcess(cliPath(), {QStringLiteral("--url"), url, QStringLiteral("--tls-ca"),
                                     path(QStringLiteral("ca.crt")), QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(ok.exitCode == 0, qPrintable(ok.describe()));
    QVERIFY2(ok.out.contains("\"name\":\"cli:tls\""), qPrintable(ok.describe()));

    ProcessResult untrusted = test::runProcess(cliPath(), {QStringLiteral("--url"), url, QStringLiteral("list")});
    QCOMPARE(untrusted.exitCode, 2);
    QVERIFY2(untrusted.err.contains("not trusted") && untrusted.err.contains("--tls-ca"),
             qPrintable(untrusted.describe()));

    ProcessResult insecure = test::runProcess(
        cliPath(), {QStringLiteral("--url"), url, QStringLiteral("--tls-insecure"), QStringLiteral("list")});
    QVERIFY2(insecure.exitCode == 0, qPrintable(insecure.describe()));
    QVERIFY2(insecure.err.contains("not verified"), qPrintable(insecure.describe())); // the warning

    ProcessResult missing = test::runProcess(cliPath(), {QStringLiteral("--url"), url, QStringLiteral("--tls-ca"),
                                                         path(QStringLiteral("missing.crt")), QStringLiteral("list")});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("does not exist"), qPrintable(missing.describe()));

    ProcessResult plainWithTls = test::runProcess(
        cliPath(), {QStringLiteral("--url"), QStringLiteral("redis://127.0.0.1:%1").arg(m_server.port()),
                    QStringLiteral("--tls-ca"), path(QStringLiteral("ca.crt")), QStringLiteral("list")});
    QCOMPARE(plainWithTls.exitCode, 1);
    QVERIFY2(plainWithTls.err.contains("rediss://"), qPrintable(plainWithTls.describe()));
    admin.cmd({"FLUSHALL"});
}

QTEST_GUILESS_MAIN(TestRedisTls)
#include "tst_redistls.moc"
