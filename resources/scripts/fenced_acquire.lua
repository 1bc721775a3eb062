-- Fenced lock acquire: Redisson RedissonFencedLock.tryLockAndGetToken / lockAndGetToken,
-- 3.19.0+ / 4.7 semantics (protocol §5.2).
-- KEYS[1]  lock name (HASH: holder field -> hold count, as an RLock)
-- KEYS[2]  token counter redisson_lock_token:{name} (STRING, no TTL, never deleted by unlock)
-- ARGV[1]  lease time in ms
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- Reply:   {-1, token} when acquired or re-entered: token = INCR of KEYS[2] (every successful
--          acquire, re-entry included), hold count + 1, TTL reset to the lease;
--          {pttl, -1} when held by someone else (pttl -1 = held with no expiry, so the reply is
--          then {-1, -1}: callers must decide by the token, which is -1 only when refused).
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    local token = redis.call('incr', KEYS[2])
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {-1, token}
end
return {redis.call('pttl', KEYS[1]), -1}
