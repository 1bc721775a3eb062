-- Workshop stage clock: makes time on the private workshop redis-server stand still
-- between steps, and rewinds it to an earlier step. Not a Redisson script. It uses KEYS and
-- FLUSHes, which is acceptable only because the workshop server is private and holds a handful
-- of keys; never run it against a shared server.
--
-- Time lives in two places on a Redisson server: the keys' TTLs (lock hashes, rwlock_timeout
-- keys, unlock latches, PEXPIRE ms) and the fair waiters' deadlines, the scores of the timeout
-- sets `redisson_lock_timeout:{name}`, which are absolute epoch-ms (protocol §3.1). Both are
-- read as the time left (ms) and put back as the same time left.
--
-- KEYS     none
-- ARGV[1]  mode:
--   "read"     ARGV[2] "dump" to add each key's DUMP payload.
--              Reply: {now_ms, {key, pttl_ms, payload_or_empty, ...}, {zset, member, left_ms, ...}}
--              where the first list has every key (pttl -1 = no expiry) and the second every member
--              of every timeout set, left_ms = score - now (negative: the deadline has passed).
--   "apply"    ARGV[2] = n, then n pairs (key, pttl_ms), then triples (zset, member, left_ms).
--              PEXPIRE key pttl_ms for each key that still exists with a TTL (pttl_ms >= 1), and
--              ZADD zset XX (now + left_ms) member for each member still in its set. Keys and
--              members that are gone stay gone. Reply: number of keys and members set.
--   "restore"  ARGV[2] = n, then n triples (key, pttl_ms, payload), then triples (zset, member,
--              left_ms). Deletes every key, RESTOREs each (TTL pttl_ms, none when < 1), then
--              applies the deadlines as "apply" does. Reply: number of keys restored.
-- now is the server's TIME in ms (the workshop's clients run on the same machine, so their
-- clock, which writes the fair deadlines, is this one).
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local mode = ARGV[1]

local function deadlines(first)
    local n = 0
    for i = first, #ARGV - 2, 3 do
        if redis.call('zscore', ARGV[i], ARGV[i + 1]) then
            redis.call('zadd', ARGV[i], 'XX', now + tonumber(ARGV[i + 2]), ARGV[i + 1])
            n = n + 1
        end
    end
    return n
end

if mode == 'read' then
    local keys, zsets = {}, {}
    for _, k in ipairs(redis.call('keys', '*')) do
        local pttl = redis.call('pttl', k)
        local payload = ''
        if ARGV[2] == 'dump' then
            payload = redis.call('dump', k)
        end
        table.insert(keys, k)
        table.insert(keys, pttl)
        table.insert(keys, payload)
        if string.sub(k, 1, 22) == 'redisson_lock_timeout:' and redis.call('type', k)['ok'] == 'zset' then
            local m = redis.call('zrange', k, 0, -1, 'withscores')
            for i = 1, #m, 2 do
                table.insert(zsets, k)
                table.insert(zsets, m[i])
                table.insert(zsets, string.format('%d', tonumber(m[i + 1]) - now))
            end
        end
    end
    return {now, keys, zsets}
elseif mode == 'apply' then
    local n = tonumber(ARGV[2])
    local set = 0
    for i = 3, 2 + 2 * n, 2 do
        local ms = tonumber(ARGV[i + 1])
        if ms >= 1 and redis.call('pttl', ARGV[i]) >= 0 then
            redis.call('pexpire', ARGV[i], ms)
            set = set + 1
        end
    end
    return set + deadlines(3 + 2 * n)
elseif mode == 'restore' then
    for _, k in ipairs(redis.call('keys', '*')) do
        redis.call('del', k)
    end
    local n = tonumber(ARGV[2])
    for i = 3, 2 + 3 * n, 3 do
        local ms = tonumber(ARGV[i + 1])
        if ms < 1 then
            ms = 0
        end
        redis.call('restore', ARGV[i], ms, ARGV[i + 2], 'REPLACE')
    end
    deadlines(3 + 3 * n)
    return n
end
return redis.error_reply('workshop_clock: unknown mode ' .. tostring(mode))
