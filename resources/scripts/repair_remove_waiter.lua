-- LockScope repair: remove one stale waiter from a fair lock's queue and timeout set together,
-- adjusting the others as Redisson's acquireFailed does (RedissonFairLock, protocol §3.4): every
-- waiter queued after it gets its deadline moved up by `wait`. Also removes a member that is in
-- only one of the two keys (doctor finding fair_companions_disagree).
-- KEYS[1] queue redisson_lock_queue:{name}, KEYS[2] timeout set redisson_lock_timeout:{name}
-- ARGV[1] waiter field "<clientId>:<threadId>", ARGV[2] wait in ms the waiter enqueued with
-- Reply: { removed from queue (0/1), removed from timeout set (0/1), waiters moved up }
local queue = redis.call('lrange', KEYS[1], 0, -1)
local index = -1
for i, member in ipairs(queue) do
    if member == ARGV[1] then
        index = i
        break
    end
end
local moved = 0
if index > 0 then
    for i = index + 1, #queue do
        if redis.call('zscore', KEYS[2], queue[i]) ~= false then
            redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
            moved = moved + 1
        end
    end
end
local fromSet = redis.call('zrem', KEYS[2], ARGV[1])
local fromQueue = redis.call('lrem', KEYS[1], 0, ARGV[1])
if fromQueue > 0 then
    fromQueue = 1
end
return { fromQueue, fromSet, moved }
