-- LockScope snapshot: reads every key of each lock in one atomic step. Read-only; LockScope's own.
-- Mirrors the layouts of protocol §2.1 (hash), §3.1 (fair queue + timeout set), §4.1 (read-write
-- lock: per-hold rwlock_timeout keys, redisson_rwlock channel), §5.2 (fence token).
-- KEYS[i]  lock names (the main hash key; derived keys follow Redisson's brace rule, §1.2)
-- ARGV[1]  how many fair-queue entries to read at most per lock
-- Reply:   { {serverSeconds, serverMicros},
--            for each KEYS[i]: { type, {field, value, ...}, pttlMs, queueLength, {queue...},
--                                timeoutSetSize, {member, deadlineEpochMs, ...}, token or "",
--                                unlockChannelSubscribers (classic + sharded),
--                                {readerField, {pttl of rwlock_timeout:1..n}, ...} (read-write locks),
--                                rwChannelSubscribers (classic + sharded), fieldCount } }
--          fieldCount is HLEN of the hash. A hash of more than ARGV[2] fields (default 1024) is
--          never read whole (an HGETALL of a million fields blocks Redis for seconds): its
--          {field, value, ...} is then a bounded sample (HRANDFIELD, or one HSCAN step before
--          Redis 6.2, which may return a few more) of ARGV[3] fields (default 16), enough to tell
--          whether it is a lock.
--          Subscriber counts add PUBSUB SHARDNUMSUB to PUBSUB NUMSUB: Redisson 3.22+ waiters on a
--          Redis 7 cluster SSUBSCRIBE (protocol §1.3, §14.3); servers before 7.0 refuse
--          SHARDNUMSUB, which then counts 0.
--          queueLength / timeoutSetSize are -1 when that key holds another type.
--          After the last entry: { twinHash for each KEYS[i] }: 1 when the hash of the name's twin
--          exists (`x` <-> `{x}`: Redisson derives the same companion keys and channels for both,
--          §14.4), else 0. The twin hashes to the same slot (its hash tag is the name).
--          Last: {serverSeconds, serverMicros} read after all the work, so the reader can tell
--          how long the call kept Redis busy and size its next batch to stay under its budget.
--          Cost: per name one HRANDFIELD of 17 fields (before Redis 6.2, or for a hash
--          of more fields: HLEN, then HGETALL or the sample; TYPE only for another type),
--          and one EXISTS of the companion keys (fair queue, timeout set, token); each companion is
--          read only when that EXISTS counts one. A hash that cannot be a lock (no field `mode`, no
--          field name with a `:`, as every holder field `<uuid>:<thread>` and faster-multilock
--          suffix has) and has no fair queue or timeout set is answered with the short entry
--          { type } (nothing else: its TTL, token, subscribers and twin are not read, twinHash 0);
--          it is no lock whatever they are, and the reply stays small. Subscriber counts of the
--          whole batch come from one PUBSUB NUMSUB and one PUBSUB SHARDNUMSUB at the end, not two
--          calls per lock. A plain lock thus costs HRANDFIELD, one EXISTS (its companions and
--          its twin) and PTTL.
-- The §14.4 twin of `name`: `{x}` for `x` without braces, `x` for `{x}`; nil for any other name.
local function twinOf(name)
    if #name > 0 and not string.find(name, '{', 1, true) then
        return '{' .. name .. '}'
    elseif #name > 2 and string.sub(name, 1, 1) == '{' and string.sub(name, -1) == '}'
        and not string.find(string.sub(name, 2, -2), '{', 1, true) then
        return string.sub(name, 2, -2)
    end
    return nil
end
local maxQueue = tonumber(ARGV[1]) or 100
local maxFields = tonumber(ARGV[2]) or 1024
local sampleFields = tonumber(ARGV[3]) or 16
-- One empty table for every empty part of the reply (a table per lock and part was a tenth of
-- the script's time in allocations and garbage collection at 200k locks).
local EMPTY = {}
local probeFields = 17
local probeArg = '17' -- as a string: a number argument would be formatted (printf) on every call
local hasRandField = true
local out = { redis.call('time') }
-- Channels whose subscribers are counted at the end: channels[k] goes to entry[slots[k]] of
-- out[owners[k]].
local channels, owners, slots = {}, {}, {}
local skipTwin = {}
for i = 1, #KEYS do
    local name = KEYS[i]
    -- HRANDFIELD name 17 WITHVALUES (Redis 6.2+) is the whole hash, in HGETALL's order, when it
    -- has at most 16 fields (every plain lock), and a bounded sample otherwise; empty for a missing
    -- key, WRONGTYPE for another type. One command where HLEN and HGETALL were two.
    local keyType = 'hash'
    local fieldCount = -1
    local whole = nil
    if hasRandField then
        local r = redis.pcall('hrandfield', name, probeArg, 'withvalues')
        if type(r) == 'table' and r['err'] == nil then
            if #r == 0 then
                keyType = 'none'
                fieldCount = 0
            elseif #r / 2 < probeFields and #r / 2 <= maxFields then
                whole = r
                fieldCount = #r / 2
            end
        elseif type(r) == 'table' and string.find(r['err'], 'WRONGTYPE', 1, true) then
            keyType = redis.call('type', name)['ok']
            fieldCount = 0
        else
            hasRandField = false -- before Redis 6.2: HLEN and HGETALL below
        end
    end
    if fieldCount < 0 then
        -- HLEN answers for a hash and for a missing key (0: Redis has no empty hash); only another
        -- type needs TYPE (the WRONGTYPE error of HLEN says so).
        fieldCount = redis.pcall('hlen', name)
        if type(fieldCount) ~= 'number' then
            keyType = redis.call('type', name)['ok']
            fieldCount = 0
        elseif fieldCount == 0 then
            keyType = 'none'
        end
    end
    local fields = EMPTY
    local hasMode = false
    local maybeLock = true
    if keyType == 'hash' then
        if whole ~= nil or fieldCount <= maxFields then
            fields = whole or redis.call('hgetall', name)
            maybeLock = false
            for f = 1, #fields, 2 do
                local field = fields[f]
                if field == 'mode' then
                    hasMode = true
                    maybeLock = true
                elseif string.find(field, ':', 1, true) then
                    maybeLock = true
                end
            end
        else
            fields = redis.pcall('hrandfield', name, sampleFields, 'withvalues')
            if type(fields) ~= 'table' or fields['err'] ~= nil then
                fields = redis.call('hscan', name, 0, 'count', sampleFields)[2]
            end
            hasMode = redis.call('hexists', name, 'mode') == 1
        end
    end
    -- `name` as the hash tag Redisson puts into derived keys: `{name}`, or `name` when it has
    -- braces (§1.2). For a name without braces it is also the name's twin (§14.4).
    local braced = string.find(name, '{', 1, true)
    local tag = braced and name or '{' .. name .. '}'
    local queueKey = 'redisson_lock_queue:' .. tag
    local timeoutKey = 'redisson_lock_timeout:' .. tag
    local tokenKey = 'redisson_lock_token:' .. tag
    -- One EXISTS tells whether any companion key is there (most locks have none); only then are
    -- they read one by one. A hash that cannot be a lock only needs the queue and timeout set.
    -- A lock's twin (§14.4) is counted by the same EXISTS: when it counts none, the twin is not
    -- looked at again (one TYPE per lock less, 200k commands at 200k locks).
    local companions
    if maybeLock then
        local twin = tag
        if braced then
            twin = twinOf(name)
        elseif #name == 0 then
            twin = nil
        end
        if twin ~= nil then
            companions = redis.call('exists', queueKey, timeoutKey, tokenKey, twin)
        else
            companions = redis.call('exists', queueKey, timeoutKey, tokenKey)
        end
        if companions == 0 then
            skipTwin[i] = true
        end
    else
        companions = redis.call('exists', queueKey, timeoutKey)
    end
    local queueLength, timeoutSize = 0, 0
    local queue, timeouts = EMPTY, EMPTY
    if companions > 0 then
        queueLength = redis.pcall('llen', queueKey)
        if type(queueLength) ~= 'number' then
            queueLength = -1
        elseif queueLength > 0 then
            queue = redis.call('lrange', queueKey, 0, maxQueue - 1)
        end
        timeoutSize = redis.pcall('zcard', timeoutKey)
        if type(timeoutSize) ~= 'number' then
            timeoutSize = -1
        elseif timeoutSize > 0 then
            timeouts = redis.call('zrange', timeoutKey, 0, maxQueue - 1, 'WITHSCORES')
        end
    end
    if not maybeLock and queueLength <= 0 and timeoutSize <= 0 then
        skipTwin[i] = true
        out[#out + 1] = { keyType }
    else
        local pttl = redis.call('pttl', name)
        local token = ''
        if companions > 0 then
            token = redis.pcall('get', tokenKey)
            if type(token) ~= 'string' then
                token = ''
            end
        end
        -- Read-write lock: the PTTL of every read hold's timeout key (keyPrefix:field:rwlock_timeout:n).
        local holdTtls = EMPTY
        if hasMode then
            holdTtls = {}
        end
        local entry = { keyType, fields, pttl, queueLength, queue, timeoutSize, timeouts, token, 0, holdTtls, 0,
                        fieldCount }
        out[#out + 1] = entry
        channels[#channels + 1] = 'redisson_lock__channel:' .. tag
        owners[#owners + 1] = entry
        slots[#slots + 1] = 9
        if hasMode then
            for f = 1, #fields, 2 do
                local field = fields[f]
                local count = tonumber(fields[f + 1])
                if field ~= 'mode' and count ~= nil and string.sub(field, -6) ~= ':write' then
                    local ttls = {}
                    for n = 1, math.min(count, 50) do
                        ttls[#ttls + 1] = redis.call('pttl', tag .. ':' .. field .. ':rwlock_timeout:' .. n)
                    end
                    holdTtls[#holdTtls + 1] = field
                    holdTtls[#holdTtls + 1] = ttls
                end
            end
            channels[#channels + 1] = 'redisson_rwlock:' .. tag
            owners[#owners + 1] = entry
            slots[#slots + 1] = 11
        end
    end
end
-- Clients waiting on each channel: classic subscribers plus sharded ones (separate name spaces).
if #channels > 0 then
    local counts = redis.call('pubsub', 'numsub', unpack(channels))
    local sharded = redis.pcall('pubsub', 'shardnumsub', unpack(channels))
    for k = 1, #channels do
        local n = counts[2 * k]
        if type(sharded) == 'table' and sharded[2 * k] ~= nil then
            n = n + sharded[2 * k]
        end
        owners[k][slots[k]] = n
    end
end
-- §14.4: whose are the shared companion keys? Tell by which of the two hashes exists.
local twins = {}
for i = 1, #KEYS do
    local name = KEYS[i]
    local twin = nil
    if not skipTwin[i] then
        twin = twinOf(name)
    end
    twins[i] = 0
    if twin ~= nil and redis.call('type', twin)['ok'] == 'hash' then
        twins[i] = 1
    end
end
out[#out + 1] = twins
out[#out + 1] = redis.call('time')
return out
