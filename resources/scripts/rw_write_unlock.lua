-- Write lock unlock: Redisson RedissonWriteLock.unlockInnerAsync, 3.24.0+ / 4.7 semantics with
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- the unlock latch (protocol §4.5).
-- KEYS[1]  lock name
-- KEYS[2]  channel redisson_rwlock:{name}
-- KEYS[3]  unlock latch redisson_unlock_latch:{name}:<requestId>
-- ARGV[1]  unlock message, "1" (READ_UNLOCK: wakes every waiter)
-- ARGV[2]  lease time in ms, re-applied while the write lock stays held
-- ARGV[3]  writer field "<clientId>:<threadId>:write"
-- ARGV[4]  publish command, "publish" or "spublish"
-- ARGV[5]  latch TTL in ms
-- Reply:   nil = not write-held by this holder (when the hash is absent, "1" is published and the
--          latch set to 1 anyway); 0 = still write-held (hold count decremented, TTL = lease);
--          1 = write lock released: the hash is deleted and "1" published, or, when the same
--          thread still has read holds, the lock is downgraded to mode "read" without a publish.
--          A replayed request id returns the first answer.
local latch = redis.call('get', KEYS[3])
if latch ~= false then
    return tonumber(latch)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call(ARGV[4], KEYS[2], ARGV[1])
    redis.call('set', KEYS[3], 1, 'px', ARGV[5])
    return nil
end
if mode == 'write' then
    if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
        return nil
    end
    local count = redis.call('hincrby', KEYS[1], ARGV[3], -1)
    if count > 0 then
        redis.call('pexpire', KEYS[1], ARGV[2])
        redis.call('set', KEYS[3], 0, 'px', ARGV[5])
        return 0
    end
    redis.call('hdel', KEYS[1], ARGV[3])
    if redis.call('hlen', KEYS[1]) == 1 then
        redis.call('del', KEYS[1])
        redis.call(ARGV[4], KEYS[2], ARGV[1])
    else
        redis.call('hset', KEYS[1], 'mode', 'read')
    end
    redis.call('set', KEYS[3], 1, 'px', ARGV[5])
    return 1
end
return nil
