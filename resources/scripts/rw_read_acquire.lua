-- Read lock acquire: Redisson RedissonReadLock.tryLockInnerAsync, 4.7 semantics (protocol §4.2).
-- KEYS[1]  lock name (HASH: "mode" -> "read"/"write", holder fields -> hold counts)
-- KEYS[2]  timeout prefix suffixName(name, holderField) .. ":rwlock_timeout", e.g.
--          "{name}:<clientId>:<threadId>:rwlock_timeout"; hold n has the key KEYS[2] .. ":" .. n
-- ARGV[1]  lease time in ms
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- ARGV[3]  the same thread's writer field "<clientId>:<threadId>:write"
-- Reply:   nil when acquired: the lock is free, in read mode, or write-held by this same thread
--          (hold count + 1, a new per-hold timeout key with PX lease, hash TTL raised to at least
--          the lease); otherwise the lock's PTTL in ms (write-held by another thread).
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':1', 1)
    redis.call('pexpire', KEYS[2] .. ':1', ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    local n = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    local holdKey = KEYS[2] .. ':' .. n
    redis.call('set', holdKey, 1)
    redis.call('pexpire', holdKey, ARGV[1])
    local remain = redis.call('pttl', KEYS[1])
    redis.call('pexpire', KEYS[1], math.max(remain, tonumber(ARGV[1])))
    return nil
end
return redis.call('pttl', KEYS[1])
