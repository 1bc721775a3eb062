-- LockScope discovery step: one SCAN step, timed by the server. Read-only; LockScope's own.
-- Runs exactly `SCAN cursor MATCH glob COUNT count [TYPE type]` (protocol §9: candidates are found
-- with SCAN, never KEYS) between two TIMEs, so LockDiscovery sizes the next COUNT by what the step
-- cost the server, not by the round trip (which also counts the network and the client's own
-- work; sized by the round trip, steps stayed small while the client was busy).
-- KEYS     none (the step visits the whole keyspace of this node)
-- ARGV[1]  cursor ("0" to start)
-- ARGV[2]  MATCH glob
-- ARGV[3]  COUNT
-- ARGV[4]  TYPE (hash, list, ...); absent or "" = no TYPE filter. "lockhash": TYPE hash, and of
--          the hashes found only those that may be a lock are returned: one with more than 16
--          fields (the snapshot samples it), or with a field `mode` or a field name holding `:`
--          (every holder field `<uuid>:<thread>` has one), as snapshot.lua's own test. Before,
--          other hashes (sessions, caches) were each read by a snapshot script only to be told
--          apart; here they cost one HRANDFIELD of 17 fields (HLEN and HKEYS before Redis 6.2).
--          "withpttl": no TYPE filter, and the PTTL of each key found is returned beside it (the
--          doctor's unlock latches: one PTTL per key in the step, within its budget, instead of a
--          burst of thousands of PTTLs that held up every read behind it).
-- ARGV[5..8] optional: a second, independent SCAN (cursor, glob, COUNT, TYPE) run in the same
--          call, so two passes over the keyspace share one round trip (discovery's
--          hash pass and fair-queue pass ran one after the other, each step waiting its turn).
-- Reply:   { {nextCursor, {key, ...}}, usedMicros } where usedMicros is the server time the SCAN
--          took (second TIME minus first), for one plain SCAN. With a second SCAN or a
--          "lockhash" one, three elements per SCAN: { page1, usedMicros1, dropped1, page2, ... },
--          `dropped` being the hashes a "lockhash" SCAN found and left out, or for "withpttl" the
--          PTTL of each key of the page in its order ({} otherwise), so the caller knows them as
--          no locks. Needs Redis >= 6.0 (SCAN ... TYPE).
local hasRandField = true
local function isLockLike(fields)
    for i = 1, #fields do
        local f = fields[i]
        if f == 'mode' or string.find(f, ':', 1, true) then
            return true
        end
    end
    return false
end
-- Redis Cluster mid-resharding: a key of a slot this node imports is not this node's to serve
-- (no ASKING in a script), and even a read of it is refused ("non local key"). SCAN returns it
-- all the same: it stays a candidate, and the reader reads it where it lives (ASK).
local function refusedByCluster(reply)
    local err = type(reply) == 'table' and reply['err']
    return type(err) == 'string' and (string.find(err, 'non local key', 1, true) ~= nil
        or string.find(err, 'rehashing', 1, true) ~= nil)
end
local function mayBeLock(key)
    -- HRANDFIELD key 17 (Redis 6.2+): every field of a hash of at most 16, else 17 of them; one
    -- bounded command where HLEN and HKEYS were two (360k hashes at 1M keys).
    if hasRandField then
        -- '17' as a string: a number argument is formatted (printf) on every call.
        local fields = redis.pcall('hrandfield', key, '17')
        if type(fields) == 'table' and fields['err'] == nil then
            return #fields > 16 or isLockLike(fields)
        end
        if refusedByCluster(fields) then
            return true
        end
        hasRandField = false -- before Redis 6.2
    end
    local count = redis.pcall('hlen', key)
    if type(count) ~= 'number' then
        return true -- refusedByCluster
    end
    if count > 16 then
        return true
    end
    return isLockLike(redis.call('hkeys', key))
end
local function scanStep(cursor, glob, count, keyType)
    local t0 = redis.call('time')
    local page
    local dropped = {}
    if keyType == 'lockhash' then
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count, 'TYPE', 'hash')
        local kept = {}
        for i = 1, #page[2] do
            if mayBeLock(page[2][i]) then
                kept[#kept + 1] = page[2][i]
            else
                dropped[#dropped + 1] = page[2][i]
            end
        end
        page[2] = kept
    elseif keyType == 'withpttl' then
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count)
        for i = 1, #page[2] do
            local ttl = redis.pcall('pttl', page[2][i])
            if type(ttl) ~= 'number' then
                ttl = -2 -- refusedByCluster: another node's key now, not this one's to judge
            end
            dropped[i] = ttl
        end
    elseif keyType ~= nil and keyType ~= '' then
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count, 'TYPE', keyType)
    else
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count)
    end
    local t1 = redis.call('time')
    return page, (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2]), dropped
end
if ARGV[5] == nil and ARGV[4] ~= 'lockhash' and ARGV[4] ~= 'withpttl' then
    local page, used = scanStep(ARGV[1], ARGV[2], ARGV[3], ARGV[4])
    return { page, used }
end
local out = {}
for i = 1, #ARGV, 4 do
    local page, used, dropped = scanStep(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
    out[#out + 1] = page
    out[#out + 1] = used
    out[#out + 1] = dropped
end
return out
