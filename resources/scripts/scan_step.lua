-- LockScope discovery step: one SCAN step, timed by the server. Read-only; LockScope's own.
-- Runs exactly `SCAN cursor MATCH glob COUNT count [TYPE type]` (protocol §9: candidates are found
-- with SCAN, never KEYS) between two TIMEs, so LockDiscovery sizes the next COUNT by what the step
-- cost the server, not by the round trip (which also counts the network and the client's own
-- work; issue 12: sized by the round trip, steps stayed small while the client was busy).
-- KEYS     none (the step visits the whole keyspace of this node)
-- ARGV[1]  cursor ("0" to start)
-- ARGV[2]  MATCH glob
-- ARGV[3]  COUNT
-- ARGV[4]  TYPE (hash, list, ...); absent or "" = no TYPE filter
-- ARGV[5..8] optional: a second, independent SCAN (cursor, glob, COUNT, TYPE) run in the same
--          call, so two passes over the keyspace share one round trip (issue 12: discovery's
--          hash pass and fair-queue pass ran one after the other, each step waiting its turn).
-- Reply:   { {nextCursor, {key, ...}}, usedMicros } where usedMicros is the server time the SCAN
--          took (second TIME minus first); with a second SCAN, its page and time follow:
--          { page1, usedMicros1, page2, usedMicros2 }. Needs Redis >= 6.0 (SCAN ... TYPE).
local function scanStep(cursor, glob, count, keyType)
    local t0 = redis.call('time')
    local page
    if keyType ~= nil and keyType ~= '' then
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count, 'TYPE', keyType)
    else
        page = redis.call('scan', cursor, 'MATCH', glob, 'COUNT', count)
    end
    local t1 = redis.call('time')
    return page, (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2])
end
local page, used = scanStep(ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if ARGV[5] == nil then
    return { page, used }
end
local page2, used2 = scanStep(ARGV[5], ARGV[6], ARGV[7], ARGV[8])
return { page, used, page2, used2 }
