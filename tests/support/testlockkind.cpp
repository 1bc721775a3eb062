#include "testlockkind.h"

#include "protocol/lockkinds.h"

namespace lockscope::test
{

namespace
{

AcquireKind g_kind = AcquireKind::Auto;

} // namespace

TestLockKind::TestLockKind(LockClient *client, QObject *parent) : ReentrantLock(client, parent) {}

AcquireKind TestLockKind::kind() const
{
    return g_kind;
}

LockKindDescriptor TestLockKind::descriptor()
{
    LockKindDescriptor d;
    d.word = QStringLiteral("testkind");
    d.label = "&Test kind";
    d.toolTip = "Test kind (the tests' own): an RLock under another word";
    d.foundAs = LockKind::Lock;
    d.protocolSection = "§2";
    d.make = [](LockClient *client, QObject *parent) -> LockVariant * { return new TestLockKind(client, parent); };
    return d;
}

AcquireKind TestLockKind::registerKind()
{
    g_kind = LockKinds::add(descriptor());
    return g_kind;
}

void TestLockKind::unregisterKind()
{
    LockKinds::remove(g_kind);
    g_kind = AcquireKind::Auto;
}

} // namespace lockscope::test
