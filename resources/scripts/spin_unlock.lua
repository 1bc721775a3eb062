-- Spin lock unlock: Redisson RedissonSpinLock.unlockInnerAsync, 3.24.0+ / 4.7 semantics with the
-- unlock latch (protocol §5.1): the RLock unlock without any publish (spin waiters poll).
-- KEYS[1]  lock name
-- KEYS[2]  unlock latch redisson_unlock_latch:{name}:<requestId>
-- ARGV[1]  lease time in ms, re-applied while the lock stays held
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- ARGV[3]  latch TTL in ms
-- Reply:   nil = not held by this holder; 0 = still held (hold count decremented);
--          1 = released (hash deleted). A replayed request id returns the first answer.
local latch = redis.call('get', KEYS[2])
if latch ~= false then
    return tonumber(latch)
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return nil
end
local count = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if count > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    redis.call('set', KEYS[2], 0, 'px', ARGV[3])
    return 0
end
redis.call('del', KEYS[1])
redis.call('set', KEYS[2], 1, 'px', ARGV[3])
return 1
