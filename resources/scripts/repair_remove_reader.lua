-- LockScope repair: remove one dead reader's holds from a read-write lock (doctor finding
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- dead_readers). Only when every one of its rwlock_timeout keys is gone (protocol §4.1, §4.3):
-- a live reader is never removed. When no holder is left, the lock is deleted and "1" published
-- on redisson_rwlock:{name} so waiting writers and readers wake (as a write unlock does, §4.5).
-- KEYS[1] lock name, KEYS[2] channel redisson_rwlock:{name}
-- ARGV[1] reader field "<clientId>:<threadId>", ARGV[2] key prefix ("{name}", or name with braces),
-- ARGV[3] "publish" or "spublish"
-- Reply: { 1, lock deleted (0/1) } removed; { 0, reason } refused ("not a reader", "alive")
if redis.call('hget', KEYS[1], 'mode') ~= 'read' and redis.call('hget', KEYS[1], 'mode') ~= 'write' then
    return { 0, 'not a read-write lock' }
end
local count = tonumber(redis.call('hget', KEYS[1], ARGV[1]))
if count == nil or string.sub(ARGV[1], -6) == ':write' then
    return { 0, 'not a reader' }
end
for n = 1, count do
    if redis.call('pttl', ARGV[2] .. ':' .. ARGV[1] .. ':rwlock_timeout:' .. n) > 0 then
        return { 0, 'alive' }
    end
end
redis.call('hdel', KEYS[1], ARGV[1])
if redis.call('hlen', KEYS[1]) <= 1 then
    redis.call('del', KEYS[1])
    redis.call(ARGV[3], KEYS[2], '1')
    return { 1, 1 }
end
return { 1, 0 }
