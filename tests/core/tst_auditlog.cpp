// The audit log as a file: a symbolic link is never followed (an existing target keeps its bytes,
// a dangling one is not created), a file others may write or of another user is refused, and an
// outcome too big for its reserved line (a RedLock's components and the servers read again) is
// appended whole as its own record while the reserved line keeps the result and points at it:
// no record stays "sending" once the outcome is known. Through lockscope-cli too: an acquire with
// a symlinked audit log is refused before anything is sent.

#include "act/auditlog.h"
#include "demo/redisserverprocess.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace lockscope;

namespace
{

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestAuditLog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void symlinkToAFileIsRefusedAndTheTargetUntouched();
    void danglingSymlinkIsRefusedAndNothingCreated();
    void fileOthersMayWriteIsRefused();
    void newFileIsOwnerOnly();
    void outcomeTooBigForItsLineIsAppendedWhole();
    void cliRefusesASymlinkedAuditLogBeforeSending();
    void failedReleaseSaysTheLockIsStillHeld();
    void refusalOfAnAbsentLockIsRecorded();

private:
    RedisServerProcess m_server; ///< for the tests through lockscope-cli
};

void TestAuditLog::initTestCase()
{
    QString error;
    QVERIFY2(m_server.start(10000, &error), qPrintable(error));
}

void TestAuditLog::cleanupTestCase()
{
    m_server.stop();
}

void TestAuditLog::symlinkToAFileIsRefusedAndTheTargetUntouched()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("passwd"));
    QVERIFY(writeFile(target, "root:x:0:0:root:/root:/bin/bash\n"));
    const QString link = dir.filePath(QStringLiteral("audit.jsonl"));
    QVERIFY(QFile::link(target, link));
    AuditLog log(link);
    QString error;
    QVERIFY(!log.check(&error));
    QVERIFY2(error.contains(QLatin1String("symbolic link")), qPrintable(error));
    QVERIFY(!log.append(QJsonObject{{QStringLiteral("action"), QStringLiteral("x")}}, &error));
    QVERIFY(!log.reserve(QJsonObject{{QStringLiteral("result"), QStringLiteral("sending")}}, &error));
    QCOMPARE(readFile(target), QByteArray("root:x:0:0:root:/root:/bin/bash\n"));
}

void TestAuditLog::danglingSymlinkIsRefusedAndNothingCreated()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("elsewhere.jsonl"));
    const QString link = dir.filePath(QStringLiteral("audit.jsonl"));
    QVERIFY(QFile::link(target, link));
    AuditLog log(link);
    QString error;
    QVERIFY(!log.check(&error));
    QVERIFY(!log.append(QJsonObject{{QStringLiteral("action"), QStringLiteral("x")}}, &error));
    QVERIFY2(error.contains(QLatin1String("symbolic link")), qPrintable(error));
    QVERIFY(!QFileInfo::exists(target));
}

void TestAuditLog::fileOthersMayWriteIsRefused()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("audit.jsonl"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0666) == 0);
    QString error;
    QVERIFY(!AuditLog(path).check(&error));
    QVERIFY2(error.contains(QLatin1String("others may write it")), qPrintable(error));
    QVERIFY(::chmod(QFile::encodeName(path).constData(), 0600) == 0);
    QVERIFY2(AuditLog(path).check(&error), qPrintable(error));
}

void TestAuditLog::newFileIsOwnerOnly()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sub/audit.jsonl"));
    QVERIFY(AuditLog(path).append(QJsonObject{{QStringLiteral("action"), QStringLiteral("x")}}));
    struct stat st = {};
    QVERIFY(::stat(QFile::encodeName(path).constData(), &st) == 0);
    QCOMPARE(int(st.st_mode & 0777), 0600);
}

void TestAuditLog::outcomeTooBigForItsLineIsAppendedWhole()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("audit.jsonl"));
    AuditLog log(path);
    const QJsonObject pending{{QStringLiteral("action"), QStringLiteral("redlock_acquire")},
                              {QStringLiteral("lock"), QStringLiteral("rl:1")},
                              {QStringLiteral("result"), QStringLiteral("sending")}};
    QString error;
    auto reservation = log.reserve(pending, &error);
    QVERIFY2(reservation, qPrintable(error));
    QVERIFY(log.append(QJsonObject{{QStringLiteral("action"), QStringLiteral("another write meanwhile")}}));
    QJsonArray components;
    for (int i = 0; i < 5; ++i)
        components << QJsonObject{{QStringLiteral("server"), QStringLiteral("127.0.0.1:%1").arg(7000 + i)},
                                  {QStringLiteral("error"), QString(600, QLatin1Char('x'))}};
    QJsonObject outcome = pending;
    outcome.insert(QStringLiteral("result"), QStringLiteral("unknown"));
    outcome.insert(QStringLiteral("message"), QStringLiteral("2 servers did not answer"));
    outcome.insert(QStringLiteral("detail"), QJsonObject{{QStringLiteral("components"), components}});
    QVERIFY2(AuditLog::complete(*reservation, outcome, &error), qPrintable(error));

    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QJsonParseError pe;
    const QJsonObject line = QJsonDocument::fromJson(lines[0], &pe).object();
    QCOMPARE(pe.error, QJsonParseError::NoError);
    QCOMPARE(line.value(QStringLiteral("result")).toString(), QStringLiteral("unknown"));
    QCOMPARE(line.value(QStringLiteral("message")).toString(), QStringLiteral("2 servers did not answer"));
    QVERIFY(line.value(QStringLiteral("outcome_record")).toString().startsWith(QLatin1String("appended")));
    const QJsonObject whole = QJsonDocument::fromJson(lines[2]).object();
    QCOMPARE(whole.value(QStringLiteral("completes_offset")).toInteger(), 0);
    QCOMPARE(whole.value(QStringLiteral("detail")).toObject().value(QStringLiteral("components")).toArray(),
             components);
    QCOMPARE(whole.value(QStringLiteral("result")).toString(), QStringLiteral("unknown"));
}

void TestAuditLog::cliRefusesASymlinkedAuditLogBeforeSending()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("target"));
    QVERIFY(writeFile(target, "keep\n"));
    const QString link = dir.filePath(QStringLiteral("audit.jsonl"));
    QVERIFY(QFile::link(target, link));
    const auto r = test::runProcess(QStringLiteral(LOCKSCOPE_CLI_PATH),
                                    {QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), link,
                                     QStringLiteral("acquire"), QStringLiteral("orders:42"),
                                     QStringLiteral("--hold-ms"), QStringLiteral("10")});
    QVERIFY2(r.finished && r.exitCode == 3, qPrintable(r.describe()));
    QVERIFY2(r.err.contains("symbolic link"), qPrintable(r.describe()));
    QCOMPARE(test::redisCli(m_server.port(), {QStringLiteral("EXISTS"), QStringLiteral("orders:42")}).out.trimmed(),
             QByteArray("0"));
    QCOMPARE(readFile(target), QByteArray("keep\n"));
}

// Issue 37: the audit log becomes unusable while `acquire --hold-ms` holds (here: others may now
// write it), so the release is refused. The lock stays held by a client that exits: the message
// says so, until about when, and which force-unlock frees it.
void TestAuditLog::failedReleaseSaysTheLockIsStillHeld()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("audit.jsonl"));
    QProcess acquire;
    acquire.start(QStringLiteral(LOCKSCOPE_CLI_PATH),
                  {QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), log,
                   QStringLiteral("acquire"), QStringLiteral("orders:42"), QStringLiteral("--lease-ms"),
                   QStringLiteral("600000"), QStringLiteral("--hold-ms"), QStringLiteral("1500")});
    QVERIFY(QTest::qWaitFor([&] { return acquire.readAllStandardOutput().contains("acquired"); }, 10000));
    QVERIFY(::chmod(QFile::encodeName(log).constData(), 0666) == 0);
    QVERIFY(acquire.waitForFinished(15000));
    QCOMPARE(acquire.exitCode(), 3);
    const QString err = QString::fromUtf8(acquire.readAllStandardError());
    QVERIFY2(err.contains(QLatin1String("STILL HELD")), qPrintable(err));
    QVERIFY2(err.contains(QLatin1String("lockscope-cli force-unlock orders:42 --url")), qPrintable(err));
    QCOMPARE(test::redisCli(m_server.port(), {QStringLiteral("EXISTS"), QStringLiteral("orders:42")}).out.trimmed(),
             QByteArray("1"));
}

// Issue 37: "refusals are recorded" holds for a force unlock of a lock that is not there too.
void TestAuditLog::refusalOfAnAbsentLockIsRecorded()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("audit.jsonl"));
    const auto r =
        test::runProcess(QStringLiteral(LOCKSCOPE_CLI_PATH),
                         {QStringLiteral("--url"), m_server.url(), QStringLiteral("--audit-log"), log,
                          QStringLiteral("force-unlock"), QStringLiteral("nobody:here"), QStringLiteral("--yes")});
    QVERIFY2(r.finished && r.exitCode == 3, qPrintable(r.describe()));
    QFile f(log);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll().trimmed().split('\n').last()).object();
    QCOMPARE(o.value(QStringLiteral("action")).toString(), QStringLiteral("force-unlock"));
    QCOMPARE(o.value(QStringLiteral("lock")).toString(), QStringLiteral("nobody:here"));
    QCOMPARE(o.value(QStringLiteral("result")).toString(), QStringLiteral("refused"));
}

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
