-- Read lock renewal: Redisson ReadLockTask, 4.4.0+ semantics (protocol §4.6): only this
-- client's own read holds are renewed.
-- KEYS     pairs: KEYS[2i-1] lock name, KEYS[2i] its key prefix "{name}" ("name" when the name
--          contains '{')
-- ARGV[1]  lease time in ms
-- ARGV     then, for each pair in order: a count N followed by N holder fields
--          "<clientId>:<threadId>" of this client
-- Reply:   array with one element per pair: 1 when at least one of the given holders still has a
--          hold count (its per-hold timeout keys n..1 and the hash get PEXPIRE lease), 0 otherwise
--          (nothing is touched; the caller stops renewing that lock).
local result = {}
local arg = 2
for i = 1, #KEYS, 2 do
    local alive = false
    local holders = tonumber(ARGV[arg])
    arg = arg + 1
    for _ = 1, holders do
        local holds = redis.call('hget', KEYS[i], ARGV[arg])
        if holds ~= false then
            alive = true
            for n = tonumber(holds), 1, -1 do
                redis.call('pexpire', KEYS[i + 1] .. ':' .. ARGV[arg] .. ':rwlock_timeout:' .. n, ARGV[1])
            end
        end
        arg = arg + 1
    end
    if alive then
        redis.call('pexpire', KEYS[i], ARGV[1])
        table.insert(result, 1)
    else
        table.insert(result, 0)
    end
end
return result
