-- LockScope repair: wake clients waiting for a lock that is already free (doctor finding
-- Calls too: publish spublish pubsub|numsub pubsub|shardnumsub (named by a variable, not a literal; WritePermissions reads this line)
-- waiters_without_holder), on the channel each kind's waiters listen to (protocol §14.5, §1.5):
--  - fair lock (queue or timeout set present): PRUNE(now) as Redisson's unlock does (§3.1), then
--    "0" on the head waiter's own channel redisson_lock__channel:{name}:<head field> (§3.5);
--  - read-write lock (clients subscribed to redisson_rwlock:{name}): "1", the write unlock's
--    READ_UNLOCK_MESSAGE, which wakes every waiting thread of each client (§1.4, §4.5). "0" would
--    wake one thread per client, and after a silent expiry every thread of a client may be asleep
--    without a timer (each saw PTTL -1), readers that could all enter together among them;
--  - RLock / fenced (clients subscribed to redisson_lock__channel:{name}): "0" (§2.3).
-- The lock is free here, so the kind is decided from what is left: the fair companion keys, else
-- who is subscribed (PUBSUB NUMSUB, or SHARDNUMSUB when the verb is spublish). Subscribers on both
-- channels: both messages. Nobody subscribed: nothing is published.
-- Refused when the lock exists: that is what force unlock is for.
-- KEYS[1] lock name, KEYS[2] unlock channel redisson_lock__channel:{name},
-- KEYS[3] read-write channel redisson_rwlock:{name}, KEYS[4] fair queue redisson_lock_queue:{name},
-- KEYS[5] fair timeout set redisson_lock_timeout:{name}
-- ARGV[1] "publish" or "spublish", ARGV[2] now in epoch ms (this client's clock, as Redisson's)
-- Reply: -1 when the lock exists (refused), else
--   { kind ("fair", "fair_empty", "read_write", "lock", "both", "none"), waiters pruned,
--     channel, message, receivers, [channel, message, receivers] }; receivers are the channel's
--     subscribers (PUBSUB NUMSUB / SHARDNUMSUB), not pattern subscribers such as LockScope itself
if redis.call('exists', KEYS[1]) == 1 then
    return -1
end
local numsub = 'numsub'
if ARGV[1] == 'spublish' then
    numsub = 'shardnumsub'
end
-- Receivers are the channel's own subscribers (PUBSUB NUMSUB): PUBLISH's reply also counts pattern
-- subscribers, such as LockScope's own monitors, which are no waiters.
local function publish(channel, message)
    local count = tonumber(redis.call('pubsub', numsub, channel)[2])
    redis.call(ARGV[1], channel, message)
    return count
end
if redis.call('exists', KEYS[4]) == 1 or redis.call('exists', KEYS[5]) == 1 then
    local pruned = 0
    while true do
        local head = redis.call('lindex', KEYS[4], 0)
        if head == false then
            break
        end
        local deadline = redis.call('zscore', KEYS[5], head)
        if deadline == false or tonumber(deadline) > tonumber(ARGV[2]) then
            break
        end
        redis.call('zrem', KEYS[5], head)
        redis.call('lpop', KEYS[4])
        pruned = pruned + 1
    end
    local head = redis.call('lindex', KEYS[4], 0)
    if head == false then
        return { 'fair_empty', pruned }
    end
    local channel = KEYS[2] .. ':' .. head
    return { 'fair', pruned, channel, '0', publish(channel, '0') }
end
local counts = redis.call('pubsub', numsub, KEYS[2], KEYS[3])
local onUnlock = tonumber(counts[2])
local onReadWrite = tonumber(counts[4])
local reply = { 'none', 0 }
if onUnlock > 0 and onReadWrite > 0 then
    reply[1] = 'both'
elseif onReadWrite > 0 then
    reply[1] = 'read_write'
elseif onUnlock > 0 then
    reply[1] = 'lock'
end
if onReadWrite > 0 then
    table.insert(reply, KEYS[3])
    table.insert(reply, '1')
    redis.call(ARGV[1], KEYS[3], '1')
    table.insert(reply, onReadWrite)
end
if onUnlock > 0 then
    table.insert(reply, KEYS[2])
    table.insert(reply, '0')
    redis.call(ARGV[1], KEYS[2], '0')
    table.insert(reply, onUnlock)
end
return reply
