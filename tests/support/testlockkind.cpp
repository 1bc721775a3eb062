#include "testlockkind.h"

#include "protocol/lockkinds.h"

namespace lockscope::test
{

TestLockKind::TestLockKind(LockClient *client, QObject *parent) : ReentrantLock(client, parent) {}

AcquireKind TestLockKind::kind() const
{
    return LockKinds::idOf(descriptor().word);
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
    return LockKinds::add(descriptor());
}

void TestLockKind::unregisterKind()
{
    LockKinds::remove(LockKinds::idOf(descriptor().word));
}

} // namespace lockscope::test
