-- Write lock acquire: Redisson RedissonWriteLock.tryLockInnerAsync, 4.7 semantics (protocol §4.4).
-- KEYS[1]  lock name (HASH: "mode" -> "read"/"write", holder fields -> hold counts)
-- ARGV[1]  lease time in ms
-- ARGV[2]  writer field "<clientId>:<threadId>:write"
-- Reply:   nil when acquired (lock free: mode = write, field = 1, TTL = lease) or re-entered
--          (hold count + 1, TTL = current PTTL + lease: Redisson adds); otherwise the lock's PTTL
--          in ms (read-held, or write-held by another thread).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    local current = redis.call('pttl', KEYS[1])
    redis.call('pexpire', KEYS[1], current + tonumber(ARGV[1]))
    return nil
end
return redis.call('pttl', KEYS[1])
