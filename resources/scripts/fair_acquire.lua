-- Fair lock acquire, waiting variant: Redisson RedissonFairLock.tryLockInnerAsync with EVAL_LONG,
-- 3.45.0+ / 4.7 semantics (protocol §3.2; PRUNE with the 3.32.0 nil guard).
-- KEYS[1]  lock name (HASH: holder field -> hold count)
-- KEYS[2]  waiter queue redisson_lock_queue:{name} (LIST of holder fields, FIFO)
-- KEYS[3]  timeout set redisson_lock_timeout:{name} (ZSET holder field -> epoch-ms deadline)
-- ARGV[1]  lease time in ms
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- ARGV[3]  wait in ms (tryLock's waitTime if > 0, else fairLockWaitTimeout = 300000)
-- ARGV[4]  now, epoch ms from the caller's clock
-- Reply:   nil when acquired (lock free and the caller first in line or no queue; every other
--          waiter's deadline moves up by ARGV[3]) or re-entered (hold count + 1, TTL reset);
--          otherwise a wait hint in ms: max(0, PTTL) when the caller is already queued, else the
--          time until the caller's turn (PTTL of the lock, or the deadline of the last waiter
--          minus now) after appending the caller to the queue with deadline hint + wait + now.

-- PRUNE: drop waiters at the head whose deadline has passed.
while true do
    local head = redis.call('lindex', KEYS[2], 0)
    if head == false then
        break
    end
    local deadline = redis.call('zscore', KEYS[3], head)
    if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[4]) then
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
        redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), waiters[i])
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

if redis.call('zscore', KEYS[3], ARGV[2]) ~= false then
    return math.max(0, redis.call('pttl', KEYS[1]))
end

local last = redis.call('lindex', KEYS[2], -1)
local ttl
local lastDeadline = false
if last ~= false and last ~= ARGV[2] then
    lastDeadline = redis.call('zscore', KEYS[3], last)
end
if lastDeadline ~= false then
    ttl = tonumber(lastDeadline) - tonumber(ARGV[4])
else
    ttl = redis.call('pttl', KEYS[1])
end
local deadline = ttl + tonumber(ARGV[3]) + tonumber(ARGV[4])
if redis.call('zadd', KEYS[3], deadline, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2])
end
return ttl
