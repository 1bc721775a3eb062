-- RLock unlock: Redisson RedissonLock.unlockInnerAsync, 3.24.0+ semantics with the unlock latch
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- (protocol §2.3).
-- KEYS[1]  lock name
-- KEYS[2]  unlock channel redisson_lock__channel:{name}
-- KEYS[3]  unlock latch redisson_unlock_latch:{name}:<requestId> (replay guard for retried unlocks)
-- ARGV[1]  unlock message, "0"
-- ARGV[2]  lease time in ms, re-applied while the lock stays held
-- ARGV[3]  holder field "<clientId>:<threadId>"
-- ARGV[4]  publish command, "publish" or "spublish"
-- ARGV[5]  latch TTL in ms
-- Reply:   nil = not held by this holder; 0 = still held (hold count decremented);
--          1 = released (hash deleted, "0" published). A replayed request id returns the first answer.
local latch = redis.call('get', KEYS[3])
if latch ~= false then
    return tonumber(latch)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end
local count = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if count > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    redis.call('set', KEYS[3], 0, 'px', ARGV[5])
    return 0
end
redis.call('del', KEYS[1])
redis.call(ARGV[4], KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[5])
return 1
