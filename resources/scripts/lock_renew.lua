-- Watchdog renewal: Redisson LockTask batched renew script, 3.44.0+ semantics (protocol §2.6).
-- KEYS[i]    lock names (in a cluster all from one hash slot)
-- ARGV[1]    lease time in ms (lockWatchdogTimeout, 30000 by default)
-- ARGV[i+1]  holder field "<clientId>:<threadId>" for KEYS[i]
-- Reply:     array, r[i] = 1 when KEYS[i] is still held by that field and its TTL was reset,
--            0 otherwise (the caller then stops renewing that lock).
local result = {}
for i = 1, #KEYS do
    if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        result[i] = 1
    else
        result[i] = 0
    end
end
return result
