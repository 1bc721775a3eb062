#pragma once

#include "lock/reentrantlock.h"

namespace lockscope::test
{

/**
 * A lock kind only the tests know, to prove that a kind is its own files plus one registration
 * (LockKinds::add): an RLock's data and scripts (protocol §2) under its own word, "testkind",
 * offered by the front ends, with an id LockKinds gives it. Register it in the test that uses it
 * and unregister it at that test's end: the other tests count on the shipped kinds only.
 */
class TestLockKind : public ReentrantLock
{
public:
    explicit TestLockKind(LockClient *client, QObject *parent = nullptr);

    /** The id LockKinds gave it (LockKinds::idOf("testkind")), as a kind whose descriptor
     *  leaves its id to the registry answers; Auto while it is not registered. */
    AcquireKind kind() const override;

    /** Its facts: word "testkind", label "&Test kind", found as a `lock` (an RLock hash). */
    static LockKindDescriptor descriptor();
    /** Registers it (LockKinds::add) and returns its id; Auto when that failed. */
    static AcquireKind registerKind();
    /** Unregisters it (LockKinds::remove). */
    static void unregisterKind();
};

} // namespace lockscope::test
