-- LockScope force unlock for every lock kind, decided atomically from the data (protocol §9).
-- Calls too: del unlink publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- Mirrors Redisson's forceUnlock of each kind:
--   read-write lock (hash has "mode"): DEL + publish on redisson_rwlock:{name}; "1" for a write
--     lock (RedissonWriteLock.forceUnlock, §4.6), and "1" also for a read lock, which wakes every
--     waiting thread instead of one (the safer choice §9 recommends);
--   fair lock (queue or timeout set exists): PRUNE(now), DEL, publish "0" on the head waiter's
--     channel redisson_lock__channel:{name}:<head> (RedissonFairLock.forceUnlock, §3.6);
--   faster multilock group (a field ending in ":expire_time" or ":lock_count", §5.5, §14.10):
--     DEL + publish "0" on redisson_lock__channel:{group}, the channel and message of
--     RedissonFasterMultiLock.forceUnlockAsync (which HDELs the fields of its own values; DEL
--     removes every value's fields at once);
--   reentrant / fenced / spin lock: DEL + publish "0" on redisson_lock__channel:{name} (§2.4;
--     spin-lock clients poll and ignore it).
-- KEYS[1] lock name, KEYS[2] unlock channel redisson_lock__channel:{name},
-- KEYS[3] fair queue redisson_lock_queue:{name}, KEYS[4] timeout set redisson_lock_timeout:{name},
-- KEYS[5] read-write channel redisson_rwlock:{name}
-- ARGV[1] now (epoch ms, for pruning expired fair waiters), ARGV[2] "publish" or "spublish",
-- ARGV[3] "1" to require that the lock hash still has exactly the state the operator confirmed,
-- ARGV[4] that state: the hash's "field=value" pairs, sorted, joined by newlines ("" = absent)
-- Reply: { deleted (1/0, or -1 = refused: the state changed),
--          kind ("read_write_lock"|"faster_multi_lock"|"fair_lock"|"lock"),
--          channel published to or "", message published or "", current state (when refused) }
-- A hash of more than 1024 fields (snapshot.lua's sampling limit) is never read whole: its state
-- is "#fields=<HLEN>", as LockSnapshot::stateFingerprint() gives for a sampled snapshot, and it is
-- deleted with UNLINK (freed in the background; the same `del` keyspace event), so no force unlock
-- blocks Redis for the length of the hash (a 1M-field hash would stall every client).
local fieldCount = redis.call('hlen', KEYS[1])
local big = fieldCount > 1024
local delete = big and 'unlink' or 'del'
if ARGV[3] == '1' then
    local state
    if big then
        state = '#fields=' .. fieldCount
    else
        local fields = redis.call('hgetall', KEYS[1])
        local parts = {}
        for i = 1, #fields, 2 do
            parts[#parts + 1] = fields[i] .. '=' .. fields[i + 1]
        end
        table.sort(parts)
        state = table.concat(parts, '\n')
    end
    if state ~= ARGV[4] then
        return { -1, '', '', '', state }
    end
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == 'read' or mode == 'write' then
    redis.call(delete, KEYS[1])
    redis.call(ARGV[2], KEYS[5], '1')
    return { 1, 'read_write_lock', KEYS[5], '1' }
end
local function isMultiLockField(field)
    return string.sub(field, -12) == ':expire_time' or string.sub(field, -11) == ':lock_count'
end
if fieldCount > 1 and not big then
    local names = redis.call('hkeys', KEYS[1])
    for i = 1, #names do
        if isMultiLockField(names[i]) then
            redis.call(delete, KEYS[1])
            redis.call(ARGV[2], KEYS[2], '0')
            return { 1, 'faster_multi_lock', KEYS[2], '0' }
        end
    end
end
if redis.call('exists', KEYS[3]) == 1 or redis.call('exists', KEYS[4]) == 1 then
    while true do
        local head = redis.call('lindex', KEYS[3], 0)
        if head == false then
            break
        end
        local deadline = redis.call('zscore', KEYS[4], head)
        if deadline ~= false and tonumber(deadline) <= tonumber(ARGV[1]) then
            redis.call('zrem', KEYS[4], head)
            redis.call('lpop', KEYS[3])
        else
            break
        end
    end
    if redis.call(delete, KEYS[1]) == 1 then
        local nextWaiter = redis.call('lindex', KEYS[3], 0)
        if nextWaiter ~= false then
            local channel = KEYS[2] .. ':' .. nextWaiter
            redis.call(ARGV[2], channel, '0')
            return { 1, 'fair_lock', channel, '0' }
        end
        return { 1, 'fair_lock', '', '' }
    end
    return { 0, 'fair_lock', '', '' }
end
if redis.call(delete, KEYS[1]) == 1 then
    redis.call(ARGV[2], KEYS[2], '0')
    return { 1, 'lock', KEYS[2], '0' }
end
return { 0, 'lock', '', '' }
