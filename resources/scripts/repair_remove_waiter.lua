-- LockScope repair: remove one stale waiter from a fair lock's queue and timeout set together,
-- adjusting the others as Redisson's acquireFailed does (RedissonFairLock, protocol §3.4): every
-- waiter queued after it gets its deadline moved up by the leaving waiter's own wait. Also removes
-- a member that is in only one of the two keys (doctor finding fair_companions_disagree).
-- The wait, when not given, is derived from the timeout set (§14.8): a waiter enqueues with
-- deadline = previous waiter's deadline + its wait (§3.2), so the gap to the waiter queued just
-- before it is its wait ("own_gap"). The head has no predecessor: when the gaps behind it (each
-- the wait of the waiter after the gap) are all equal, i.e. one configuration, that gap is used
-- ("gaps_behind"), otherwise ARGV[3] ("default", Redisson's fairLockWaitTimeout).
-- KEYS[1] queue redisson_lock_queue:{name}, KEYS[2] timeout set redisson_lock_timeout:{name}
-- ARGV[1] waiter field "<clientId>:<threadId>", ARGV[2] wait in ms the waiter enqueued with, or
-- "0" to derive it, ARGV[3] fallback wait in ms when it cannot be derived
-- Reply: { removed from queue (0/1), removed from timeout set (0/1), waiters moved up,
--          wait used in ms, where it came from: "given", "own_gap", "gaps_behind" or "default" }
local queue = redis.call('lrange', KEYS[1], 0, -1)
local index = -1
for i, member in ipairs(queue) do
    if member == ARGV[1] then
        index = i
        break
    end
end
local wait = tonumber(ARGV[2])
local source = 'given'
if wait == nil or wait <= 0 then
    wait = tonumber(ARGV[3])
    source = 'default'
    local scores = {}
    for i, member in ipairs(queue) do
        local s = redis.call('zscore', KEYS[2], member)
        if s ~= false then
            scores[i] = tonumber(s)
        end
    end
    if index > 1 and scores[index] ~= nil and scores[index - 1] ~= nil
        and scores[index] - scores[index - 1] > 0 then
        wait = scores[index] - scores[index - 1]
        source = 'own_gap'
    elseif index == 1 and #queue >= 2 then
        local gap = nil
        local same = true
        for i = 2, #queue do
            if scores[i] == nil or scores[i - 1] == nil then
                same = false
                break
            end
            local g = scores[i] - scores[i - 1]
            if g <= 0 or (gap ~= nil and g ~= gap) then
                same = false
                break
            end
            gap = g
        end
        if same and gap ~= nil then
            wait = gap
            source = 'gaps_behind'
        end
    end
end
local moved = 0
if index > 0 then
    for i = index + 1, #queue do
        if redis.call('zscore', KEYS[2], queue[i]) ~= false then
            redis.call('zincrby', KEYS[2], -wait, queue[i])
            moved = moved + 1
        end
    end
end
local fromSet = redis.call('zrem', KEYS[2], ARGV[1])
local fromQueue = redis.call('lrem', KEYS[1], 0, ARGV[1])
if fromQueue > 0 then
    fromQueue = 1
end
return { fromQueue, fromSet, moved, math.floor(wait), source }
