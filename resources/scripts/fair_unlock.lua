-- Fair lock unlock: Redisson RedissonFairLock.unlockInnerAsync, 3.32.0+ / 4.7 semantics with the
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- unlock latch (protocol §3.5).
-- KEYS[1]  lock name
-- KEYS[2]  waiter queue redisson_lock_queue:{name}
-- KEYS[3]  timeout set redisson_lock_timeout:{name}
-- KEYS[4]  unlock channel base redisson_lock__channel:{name}; the head waiter is told on
--          KEYS[4] .. ":" .. <its holder field>
-- KEYS[5]  unlock latch redisson_unlock_latch:{name}:<requestId>
-- ARGV[1]  unlock message, "0"
-- ARGV[2]  lease time in ms, re-applied while the lock stays held
-- ARGV[3]  holder field "<clientId>:<threadId>"
-- ARGV[4]  now, epoch ms from the caller's clock (for PRUNE)
-- ARGV[5]  publish command, "publish" or "spublish"
-- ARGV[6]  latch TTL in ms
-- Reply:   nil = not held by this holder; 0 = still held (hold count decremented);
--          1 = released (hash deleted, head waiter told) -- ALSO when the lock key was already
--          gone (expired or force-unlocked): then the head waiter is told too. A replayed request
--          id returns the first answer.
local latch = redis.call('get', KEYS[5])
if latch ~= false then
    return tonumber(latch)
end

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

if redis.call('exists', KEYS[1]) == 0 then
    local nextWaiter = redis.call('lindex', KEYS[2], 0)
    if nextWaiter ~= false then
        redis.call(ARGV[5], KEYS[4] .. ':' .. nextWaiter, ARGV[1])
    end
    redis.call('set', KEYS[5], 1, 'px', ARGV[6])
    return 1
end

if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
    return nil
end

local count = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if count > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    redis.call('set', KEYS[5], 0, 'px', ARGV[6])
    return 0
end

redis.call('del', KEYS[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[6])
local nextWaiter = redis.call('lindex', KEYS[2], 0)
if nextWaiter ~= false then
    redis.call(ARGV[5], KEYS[4] .. ':' .. nextWaiter, ARGV[1])
end
return 1
