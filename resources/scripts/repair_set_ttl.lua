-- LockScope repair: give a lock that has no TTL one, so its holder can still finish but a dead
-- holder no longer blocks it forever (doctor finding no_ttl). Not a Redisson script.
-- KEYS[1] lock name
-- ARGV[1] TTL in ms
-- ARGV[2] the lock state the operator confirmed: its "field=value" pairs, sorted, newline-joined
-- Reply: { 1 } TTL set; { -1, current state } refused: the lock changed since it was confirmed;
--        { 0, "has a TTL" } refused: it already expires (nothing to repair)
-- A hash of more than 1024 fields is never read whole (reading it would stall Redis): its state is "#fields=<HLEN>",
-- as LockSnapshot::stateFingerprint() gives for a sampled snapshot.
local fieldCount = redis.call('hlen', KEYS[1])
local state
if fieldCount > 1024 then
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
if state ~= ARGV[2] then
    return { -1, state }
end
if redis.call('pttl', KEYS[1]) ~= -1 then
    return { 0, 'has a TTL' }
end
redis.call('pexpire', KEYS[1], ARGV[1])
return { 1 }
