-- LockScope repair: remove one stale waiter from a fair lock's queue and timeout set together,
-- Calls too: publish spublish pubsub|numsub pubsub|shardnumsub (named by a variable, not a literal; WritePermissions reads this line)
-- adjusting the others as Redisson's acquireFailed does (RedissonFairLock, protocol §3.4): every
-- waiter queued after it gets its deadline moved up by the leaving waiter's own wait. Also removes
-- a member that is in only one of the two keys (doctor finding fair_companions_disagree).
-- The wait, when not given, is derived from the timeout set (§14.8): a waiter enqueues with
-- deadline = previous waiter's deadline + its wait (§3.2), so the gap to the waiter queued just
-- before it is its wait ("own_gap"). The head has no predecessor: when the gaps behind it (each
-- the wait of the waiter after the gap) are all equal, i.e. one configuration, that gap is used
-- ("gaps_behind"), otherwise ARGV[3] ("default", Redisson's fairLockWaitTimeout).
-- A repair never moves a deadline into the past: a waiter behind is moved up at most to
-- now + max(ARGV[6], PTTL of the lock) (a live waiter sleeps up to about the TTL it was told, and
-- must not be pruned meanwhile), and never later than it was ("clamped" counts those held back).
-- Then, when the lock is free, the new head is woken on its own channel with "0" as Redisson's
-- unlock does (§3.5): it acquires at once instead of at the end of its timer.
-- KEYS[1] queue redisson_lock_queue:{name}, KEYS[2] timeout set redisson_lock_timeout:{name},
-- KEYS[3] lock name, KEYS[4] unlock channel base redisson_lock__channel:{name}
-- ARGV[1] waiter field "<clientId>:<threadId>", ARGV[2] wait in ms the waiter enqueued with, or
-- "0" to derive it, ARGV[3] fallback wait in ms when it cannot be derived, ARGV[4] now in epoch ms
-- (this client's clock, as Redisson's), ARGV[5] "publish" or "spublish", ARGV[6] the least time
-- a moved deadline keeps ahead of now, ms
-- Reply: { removed from queue (0/1), removed from timeout set (0/1), waiters moved up,
--          wait used in ms, where it came from: "given", "own_gap", "gaps_behind" or "default",
--          moves held back by the floor, channel of the woken head or "", its receivers }
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
local clamped = 0
if index > 0 then
    local floor = tonumber(ARGV[4]) + math.max(tonumber(ARGV[6]), redis.call('pttl', KEYS[3]))
    for i = index + 1, #queue do
        local score = redis.call('zscore', KEYS[2], queue[i])
        if score ~= false then
            score = tonumber(score)
            local target = score - wait
            if target < floor then
                target = math.min(score, floor)
                clamped = clamped + 1
            end
            if target < score then
                redis.call('zincrby', KEYS[2], target - score, queue[i])
                moved = moved + 1
            end
        end
    end
end
local fromSet = redis.call('zrem', KEYS[2], ARGV[1])
local fromQueue = redis.call('lrem', KEYS[1], 0, ARGV[1])
if fromQueue > 0 then
    fromQueue = 1
end
local channel = ''
local receivers = 0
if (fromQueue == 1 or fromSet == 1) and redis.call('exists', KEYS[3]) == 0 then
    local head = redis.call('lindex', KEYS[1], 0)
    if head ~= false then
        channel = KEYS[4] .. ':' .. head
        -- Its own subscribers only: PUBLISH also counts pattern subscribers (LockScope itself).
        local numsub = 'numsub'
        if ARGV[5] == 'spublish' then
            numsub = 'shardnumsub'
        end
        receivers = tonumber(redis.call('pubsub', numsub, channel)[2])
        redis.call(ARGV[5], channel, '0')
    end
end
return { fromQueue, fromSet, moved, math.floor(wait), source, clamped, channel, receivers }
