-- Fair lock: give up waiting. Redisson RedissonFairLock.acquireFailedAsync (protocol §3.4).
-- KEYS[1]  waiter queue redisson_lock_queue:{name}
-- KEYS[2]  timeout set redisson_lock_timeout:{name}
-- ARGV[1]  holder field "<clientId>:<threadId>" of the waiter giving up
-- ARGV[2]  wait in ms, the same value the waiter enqueued with
-- Reply:   nil. Every waiter queued after the caller gets its deadline moved up by ARGV[2]; then
--          the caller leaves the timeout set and the queue. Nothing happens if it is not queued.
local queue = redis.call('lrange', KEYS[1], 0, -1)
local position = 0
for i = 1, #queue do
    if queue[i] == ARGV[1] then
        position = i
        break
    end
end
if position > 0 then
    for i = position + 1, #queue do
        redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
    end
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return nil
