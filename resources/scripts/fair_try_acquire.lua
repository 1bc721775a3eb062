-- Fair lock acquire, no-wait variant: Redisson RedissonFairLock.tryLockInnerAsync with
-- EVAL_NULL_BOOLEAN (tryLock() without a wait), 3.32.0+ / 4.7 semantics (protocol §3.3).
-- KEYS[1]  lock name (HASH: holder field -> hold count)
-- KEYS[2]  waiter queue redisson_lock_queue:{name}
-- KEYS[3]  timeout set redisson_lock_timeout:{name}
-- ARGV[1]  lease time in ms
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- ARGV[3]  now, epoch ms from the caller's clock     (NOTE: order differs from fair_acquire.lua)
-- ARGV[4]  wait in ms (fairLockWaitTimeout, 300000): how far the other waiters' deadlines move up
-- Reply:   nil when acquired (lock free and the caller first in line or no queue) or re-entered;
--          1 when not acquired. Never enqueues the caller.

-- PRUNE: drop waiters at the head whose deadline has passed.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], head)
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[3]) then
        redis.call('zrem', KEYS[3], head)
        redis.call('lpop', KEYS[2])
    else
        break
    end
end

if redis.call('exists', KEYS[1]) == 0
    and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], ARGV[2])
    local waiters = redis.call('zrange', KEYS[3], 0, -1)
    for i = 1, #waiters do
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[4]), waiters[i])
    end
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

return 1
