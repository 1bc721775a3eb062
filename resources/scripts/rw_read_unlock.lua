-- Read lock unlock: Redisson RedissonReadLock.unlockInnerAsync, 3.24.0+ / 4.7 semantics with the
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- unlock latch (protocol §4.3).
-- KEYS[1]  lock name
-- KEYS[2]  channel redisson_rwlock:{name}
-- KEYS[3]  timeout prefix of the caller, "{name}:<clientId>:<threadId>:rwlock_timeout"
-- KEYS[4]  key prefix, "{name}" ("name" when the name contains '{'): the part of KEYS[3] before
--          ":" .. holder field
-- KEYS[5]  unlock latch redisson_unlock_latch:{name}:<requestId>
-- ARGV[1]  unlock message, "0"
-- ARGV[2]  holder field "<clientId>:<threadId>"
-- ARGV[3]  publish command, "publish" or "spublish"
-- ARGV[4]  latch TTL in ms
-- Reply:   nil = not held by this holder (when the hash is absent, "0" is published and the latch
--          set to 1 anyway: Redisson's quirk, §13); 0 = the lock stays (other live holders, or
--          the caller's own write hold; hash TTL = the longest remaining per-hold timeout);
--          1 = released (hash deleted, "0" published). A replayed request id returns the first answer.
local latch = redis.call('get', KEYS[5])
if latch ~= false then
    return tonumber(latch)
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call(ARGV[3], KEYS[2], ARGV[1])
    redis.call('set', KEYS[5], 1, 'px', ARGV[4])
    return nil
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return nil
end
local count = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if count == 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (count + 1))

if redis.call('hlen', KEYS[1]) > 1 then
    local maxRemain = -3
    local fields = redis.call('hkeys', KEYS[1])
    for _, field in ipairs(fields) do
        local holds = tonumber(redis.call('hget', KEYS[1], field))
        if type(holds) == 'number' then
            for i = holds, 1, -1 do
                local remain = redis.call('pttl', KEYS[4] .. ':' .. field .. ':rwlock_timeout:' .. i)
                maxRemain = math.max(remain, maxRemain)
            end
        end
    end
    if maxRemain > 0 then
        redis.call('pexpire', KEYS[1], maxRemain)
        redis.call('set', KEYS[5], 0, 'px', ARGV[4])
        return 0
    end
    if mode == 'write' then
        redis.call('set', KEYS[5], 0, 'px', ARGV[4])
        return 0
    end
end

redis.call('del', KEYS[1])
redis.call(ARGV[3], KEYS[2], ARGV[1])
redis.call('set', KEYS[5], 1, 'px', ARGV[4])
return 1
