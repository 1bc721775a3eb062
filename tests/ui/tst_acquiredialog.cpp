// The Acquire… dialog's kind choice (an acquire with another kind's script corrupts a
// Redisson lock): the kind the data says is preselected, kinds
// that contradict it are disabled with a tooltip saying why, a read-write lock needs a choice.
// Set LOCKSCOPE_SCREENSHOT_DIR to also save PNGs of the dialog.

#include "locks/acquiredialog.h"
#include "protocol/lockkinds.h"

#include "testlockkind.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScopeGuard>
#include <QtTest>

using namespace lockscope;

namespace
{

LockSnapshot readWriteLock()
{
    LockSnapshot s;
    s.name = QStringLiteral("config:rw");
    s.exists = s.isLock = true;
    s.kind = LockKind::ReadWriteLock;
    s.rwMode = QStringLiteral("read");
    s.pttlMs = 30000;
    for (const char *f : {"b983c153-7421-469a-addb-44fb92259a1b:1", "5d3c1a2e-9f8b-4e7d-a6c5-b4a392817f60:7"}) {
        LockHolder h;
        h.field = QString::fromLatin1(f);
        h.holdCount = 1;
        h.mode = QStringLiteral("read");
        s.holders << h;
    }
    return s;
}

LockSnapshot fairLock()
{
    LockSnapshot s;
    s.name = QStringLiteral("orders:42");
    s.exists = s.isLock = true;
    s.kind = LockKind::FairLock;
    s.pttlMs = 30000;
    LockHolder h;
    h.field = QStringLiteral("b983c153-7421-469a-addb-44fb92259a1b:1");
    h.holdCount = 1;
    s.holders << h;
    s.queueLength = s.timeoutSetSize = 3;
    return s;
}

void screenshot(QWidget *w, const QString &file)
{
    const QString dir = qEnvironmentVariable("LOCKSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(w->grab().save(QDir(dir).filePath(file)));
}

} // namespace

class TestAcquireDialog : public QObject
{
    Q_OBJECT
private slots:
    void kindsFollowTheData();
    void aRegisteredKindIsOffered();
};

void TestAcquireDialog::kindsFollowTheData()
{
    const QList<LockSnapshot> known{readWriteLock(), fairLock()};
    AcquireDialog dialog(QStringLiteral("config:rw"), [&](const QString &name) -> std::optional<LockSnapshot> {
        for (const auto &s : known)
            if (s.name == name)
                return s;
        return std::nullopt;
    });
    dialog.show();
    QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);

    // Read-write lock: no default, only read and write offered.
    QVERIFY(dialog.kind() == AcquireKind::Auto);
    QVERIFY(!ok->isEnabled());
    for (AcquireKind k : {AcquireKind::Lock, AcquireKind::Fair, AcquireKind::Fenced}) {
        QVERIFY(!dialog.kindButton(k)->isEnabled());
        QVERIFY2(
            dialog.kindButton(k)->toolTip().contains(QLatin1String("read-write lock, held for reading by 2 readers")),
            qPrintable(dialog.kindButton(k)->toolTip()));
    }
    QVERIFY(dialog.kindButton(AcquireKind::Read)->isEnabled());
    QVERIFY(dialog.kindButton(AcquireKind::Write)->isEnabled());
    screenshot(&dialog, QStringLiteral("acquiredialog-rw.png"));
    dialog.kindButton(AcquireKind::Read)->click();
    QVERIFY(dialog.kind() == AcquireKind::Read);
    QVERIFY(ok->isEnabled());

    // Fair lock with waiters: fair preselected, lock would jump the queue.
    auto *name = dialog.findChild<QLineEdit *>();
    name->setText(QStringLiteral("orders:42"));
    QVERIFY(dialog.kind() == AcquireKind::Fair);
    QVERIFY(ok->isEnabled());
    QVERIFY(!dialog.kindButton(AcquireKind::Lock)->isEnabled());
    QVERIFY2(dialog.kindButton(AcquireKind::Lock)->toolTip().contains(QLatin1String("\"lock\" would jump the queue")),
             qPrintable(dialog.kindButton(AcquireKind::Lock)->toolTip()));
    screenshot(&dialog, QStringLiteral("acquiredialog-fair.png"));

    // A free name: every kind, lock by default.
    name->setText(QStringLiteral("new:1"));
    QVERIFY(dialog.kind() == AcquireKind::Lock);
    for (AcquireKind k :
         {AcquireKind::Lock, AcquireKind::Fair, AcquireKind::Read, AcquireKind::Write, AcquireKind::Fenced})
        QVERIFY(dialog.kindButton(k)->isEnabled());
    dialog.kindButton(AcquireKind::Fenced)->click();
    QVERIFY(dialog.kind() == AcquireKind::Fenced);
    screenshot(&dialog, QStringLiteral("acquiredialog-free.png"));
}

// A kind registered by a test (its own class and one LockKinds::add) is one more choice, with its
// descriptor's label and tooltip, judged by the data like the shipped kinds.
void TestAcquireDialog::aRegisteredKindIsOffered()
{
    const AcquireKind kind = test::TestLockKind::registerKind();
    auto unregister = qScopeGuard([] { test::TestLockKind::unregisterKind(); });
    QVERIFY(kind != AcquireKind::Auto);
    const QList<LockSnapshot> known{fairLock()};
    AcquireDialog dialog(QStringLiteral("new:1"), [&](const QString &name) -> std::optional<LockSnapshot> {
        for (const auto &s : known)
            if (s.name == name)
                return s;
        return std::nullopt;
    });
    dialog.show();

    QRadioButton *b = dialog.kindButton(kind);
    QVERIFY(b);
    QCOMPARE(b->text(), QStringLiteral("&Test kind"));
    QCOMPARE(b->toolTip(), QStringLiteral("Test kind (the tests' own): an RLock under another word"));
    QVERIFY(b->isEnabled());
    QVERIFY(dialog.kind() == AcquireKind::Lock);
    b->click();
    QVERIFY(dialog.kind() == kind);
    QCOMPARE(dialog.findChildren<QRadioButton *>().size(), 2 + LockKinds::offered().size()); // + watchdog, lease

    dialog.findChild<QLineEdit *>()->setText(QStringLiteral("orders:42"));
    QVERIFY(!b->isEnabled());
    QVERIFY2(b->toolTip().contains(QLatin1String("\"testkind\" would jump the queue")), qPrintable(b->toolTip()));

    unregister.dismiss();
    test::TestLockKind::unregisterKind();
    AcquireDialog without(QStringLiteral("new:1"));
    QVERIFY(!without.kindButton(kind));
}

QTEST_MAIN(TestAcquireDialog)
#include "tst_acquiredialog.moc"
