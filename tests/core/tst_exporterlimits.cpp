// `lockscope-cli serve` against clients that want to take it down without credentials: endless
// request headers, idle connections beyond the descriptor limit, and wrong basic-auth passwords
// (each a bcrypt). An authorized scrape must still answer within a second, with lockscope_up 1.
// The exporter runs as a process under `ulimit -n 1024` (a systemd unit's default); every socket
// is on loopback and every attack is bounded in count and time.

#include "demo/redisserverprocess.h"
#include "metrics/webconfig.h"

#include "testsupport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <sys/resource.h>

#include <memory>
#include <vector>

using namespace lockscope;
using lockscope::test::waitUntil;

namespace
{

QString cliPath()
{
    return QStringLiteral(LOCKSCOPE_CLI_PATH);
}

const QByteArray kGoodAuth = "Basic " + QByteArray("prometheus:scrape-me").toBase64();

/** One HTTP request on a fresh connection; the status and how long the whole answer took. */
struct Answer {
    int status = 0;
    QByteArray body;
    qint64 ms = -1;
};

Answer request(quint16 port, const QByteArray &auth, int timeoutMs = 5000)
{
    QTcpSocket s;
    QElapsedTimer clock;
    clock.start();
    s.connectToHost(QHostAddress::LocalHost, port);
    Answer a;
    if (!s.waitForConnected(timeoutMs))
        return a;
    s.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
            (auth.isEmpty() ? QByteArray() : "Authorization: " + auth + "\r\n") + "Connection: close\r\n\r\n");
    QByteArray data;
    waitUntil(
        [&] {
            data += s.readAll();
            return s.state() != QAbstractSocket::ConnectedState ||
                   (data.contains("\r\n\r\n") && data.contains("Content-Length") &&
                    data.size() - data.indexOf("\r\n\r\n") - 4 >=
                        data.mid(data.indexOf("Content-Length: ") + 16).split('\r').first().toInt());
        },
        timeoutMs);
    data += s.readAll();
    a.ms = clock.elapsed();
    const QRegularExpressionMatch m =
        QRegularExpression(QStringLiteral("^HTTP/1\\.1 (\\d+)")).match(QString::fromLatin1(data.left(32)));
    a.status = m.hasMatch() ? m.captured(1).toInt() : 0;
    a.body = data.mid(data.indexOf("\r\n\r\n") + 4);
    return a;
}

} // namespace

class TestExporterLimits : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void scrapeAnswersUnderAttack();
    void hugeHeaderGets431();

private:
    quint16 startServe();

    RedisServerProcess m_server;
    QTemporaryDir m_tmp;
    QProcess m_serve;
    QByteArray m_serveErr;
};

void TestExporterLimits::initTestCase()
{
    QVERIFY2(QFile::exists(cliPath()), qPrintable(cliPath()));
    QVERIFY(m_tmp.isValid());
    // This test holds 1100+ sockets of its own.
    struct rlimit files = {};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &files), 0);
    if (files.rlim_max != RLIM_INFINITY && files.rlim_max < 4096)
        QSKIP("the hard descriptor limit is below 4096: cannot open 1100 sockets here");
    files.rlim_cur = files.rlim_max == RLIM_INFINITY ? 65536 : qMin<rlim_t>(files.rlim_max, 65536);
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &files), 0);
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
    QFile config(m_tmp.filePath(QStringLiteral("web.yml")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    // bcrypt cost 10, as a real config has it: about 80 ms a check.
    config.write("basic_auth_users:\n  prometheus: " + WebConfig::hashBcrypt("scrape-me", 10) + "\n");
}

void TestExporterLimits::cleanupTestCase()
{
    if (m_serve.state() != QProcess::NotRunning) {
        m_serve.kill();
        m_serve.waitForFinished(3000);
    }
    m_server.stop();
}

quint16 TestExporterLimits::startServe()
{
    if (m_serve.state() != QProcess::NotRunning)
        return quint16(QRegularExpression(QStringLiteral("http://127\\.0\\.0\\.1:(\\d+)"))
                           .match(QString::fromUtf8(m_serveErr))
                           .captured(1)
                           .toUInt());
    // A systemd unit's default: 1024 descriptors.
    m_serve.start(QStringLiteral("/bin/bash"),
                  {QStringLiteral("-c"), QStringLiteral("ulimit -n 1024; exec \"$0\" \"$@\""), cliPath(),
                   QStringLiteral("--url"), m_server.url(), QStringLiteral("serve"), QStringLiteral("--listen"),
                   QStringLiteral("127.0.0.1:0"), QStringLiteral("--web-config"),
                   m_tmp.filePath(QStringLiteral("web.yml"))});
    quint16 port = 0;
    waitUntil(
        [&] {
            m_serveErr += m_serve.readAllStandardError();
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("http://127\\.0\\.0\\.1:(\\d+)"))
                                                  .match(QString::fromUtf8(m_serveErr));
            port = m.hasMatch() ? quint16(m.captured(1).toUInt()) : 0;
            return port != 0;
        },
        15000);
    return port;
}

void TestExporterLimits::scrapeAnswersUnderAttack()
{
    const quint16 port = startServe();
    QVERIFY2(port != 0, m_serveErr.constData());
    // Prometheus scrapes every 15 s: its password is verified (and remembered) before any attack.
    const Answer first = request(port, kGoodAuth);
    QVERIFY2(first.status == 200, qPrintable(QStringLiteral("status %1").arg(first.status)));
    QVERIFY(first.body.contains("lockscope_up 1"));

    // 1. 1100 idle connections (more than the exporter's 1024 descriptors).
    std::vector<std::unique_ptr<QTcpSocket>> idle;
    for (int i = 0; i < 1100; ++i) {
        idle.push_back(std::make_unique<QTcpSocket>());
        idle.back()->connectToHost(QHostAddress::LocalHost, port);
    }
    waitUntil(
        [&] {
            for (const auto &s : idle)
                if (s->state() == QAbstractSocket::ConnectingState || s->state() == QAbstractSocket::HostLookupState)
                    return false;
            return true;
        },
        10000);
    // 2. Four clients streaming endless headers (8 KiB lines every 5 ms, each for up to 20 s).
    std::vector<std::unique_ptr<QTcpSocket>> streams;
    for (int i = 0; i < 4; ++i) {
        streams.push_back(std::make_unique<QTcpSocket>());
        streams.back()->connectToHost(QHostAddress::LocalHost, port);
        streams.back()->write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    }
    QTimer streamer;
    const QByteArray junk = "X-Junk: " + QByteArray(8192, 'j') + "\r\n";
    int sent = 0;
    QObject::connect(&streamer, &QTimer::timeout, [&] {
        for (const auto &s : streams)
            if (s->state() == QAbstractSocket::ConnectedState && s->bytesToWrite() < 1 << 20)
                s->write(junk);
        if (++sent > 4000)
            streamer.stop();
    });
    streamer.start(5);
    // 3. 100 wrong passwords at once, each on its own connection.
    std::vector<std::unique_ptr<QTcpSocket>> wrong;
    for (int i = 0; i < 100; ++i) {
        wrong.push_back(std::make_unique<QTcpSocket>());
        wrong.back()->connectToHost(QHostAddress::LocalHost, port);
        wrong.back()->write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic " +
                            QByteArray("prometheus:wrong-" + QByteArray::number(i)).toBase64() + "\r\n\r\n");
    }
    QTest::qWait(300);

    // The authorized scrape answers within a second, three times over, and Redis is still seen.
    for (int i = 0; i < 3; ++i) {
        const Answer a = request(port, kGoodAuth);
        QVERIFY2(a.status == 200 && a.ms < 1000,
                 qPrintable(QStringLiteral("scrape %1: status %2 after %3 ms").arg(i).arg(a.status).arg(a.ms)));
        QVERIFY2(a.body.contains("lockscope_up 1"), a.body.left(2000).constData());
        QTest::qWait(200);
    }
    // The header streams were cut off (431 and closed), not buffered.
    QVERIFY2(waitUntil(
                 [&] {
                     for (const auto &s : streams)
                         if (s->state() == QAbstractSocket::ConnectedState)
                             return false;
                     return true;
                 },
                 10000),
             "a client streaming headers is still connected");
    streamer.stop();
    // The wrong passwords were refused (401, or 429 once this second's bcrypt budget was spent).
    int refused = 0;
    waitUntil(
        [&] {
            refused = 0;
            for (const auto &s : wrong) {
                const QByteArray head = s->peek(12);
                refused += head.startsWith("HTTP/1.1 401") || head.startsWith("HTTP/1.1 429");
            }
            return refused == 100;
        },
        10000);
    QCOMPARE(refused, 100);
    // The exporter held far fewer descriptors than the 1100 idle clients.
    const qint64 pid = m_serve.processId();
    const int fds = int(QDir(QStringLiteral("/proc/%1/fd").arg(pid)).entryList(QDir::Files | QDir::System).size());
    QVERIFY2(fds < 300, qPrintable(QStringLiteral("%1 descriptors open").arg(fds)));
    QCOMPARE(m_serve.state(), QProcess::Running);
}

void TestExporterLimits::hugeHeaderGets431()
{
    const quint16 port = startServe();
    QVERIFY2(port != 0, m_serveErr.constData());
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    QVERIFY(s.waitForConnected(5000));
    // One 10 MB header (before: answered 200 after buffering all of it).
    s.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + kGoodAuth +
            "\r\nX-Big: " + QByteArray(10 * 1000 * 1000, 'b') + "\r\n\r\n");
    QByteArray data;
    waitUntil(
        [&] {
            data += s.readAll();
            return s.state() != QAbstractSocket::ConnectedState;
        },
        10000);
    data += s.readAll();
    QVERIFY2(data.startsWith("HTTP/1.1 431"), data.left(200).constData());
}

QTEST_GUILESS_MAIN(TestExporterLimits)
#include "tst_exporterlimits.moc"
