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
-- Reply:   { {nextCursor, {key, ...}}, usedMicros } where usedMicros is the server time the SCAN
--          took (second TIME minus first). Needs Redis >= 6.0 (SCAN ... TYPE).
local t0 = redis.call('time')
local page
if ARGV[4] ~= nil and ARGV[4] ~= '' then
    page = redis.call('scan', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3], 'TYPE', ARGV[4])
else
    page = redis.call('scan', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
end
local t1 = redis.call('time')
return { page, (tonumber(t1[1]) - tonumber(t0[1])) * 1000000 + tonumber(t1[2]) - tonumber(t0[2]) }
