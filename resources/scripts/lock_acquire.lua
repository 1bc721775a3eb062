-- RLock acquire: Redisson RedissonLock.tryLockInnerAsync, 3.52.0+ / 4.7 semantics (protocol §2.2).
-- KEYS[1]  lock name (HASH: holder field -> hold count)
-- ARGV[1]  lease time in ms (the watchdog timeout, 30000, when no lease is given)
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- Reply:   nil when acquired or re-entered (hold count + 1, TTL reset to the lease);
--          otherwise the lock's PTTL in ms (held by someone else; -1 = held with no expiry).
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
return redis.call('pttl', KEYS[1])
