-- LockScope: which of the commands its writes call may this connection's ACL user run? Read-only,
-- writes nothing. Asked once per connection, so the dashboard can disable an action the user may
-- not perform before the operator confirms it (a refused script names no command). Uses
-- redis.acl_check_cmd (Redis 7.0+).
-- KEYS[1]  a lock name (the key permissions of the checks)
-- KEYS[2]  an unlock channel (the channel permissions of PUBLISH)
-- ARGV     none
-- Reply:   the refused commands, lower case ("del", "publish", "config|set", ...); an error on
--          servers before 7.0 (no redis.acl_check_cmd).
local k = KEYS[1]
local ch = KEYS[2]
local checks = {
    {'evalsha', 'x', '1', k}, {'del', k}, {'hincrby', k, 'f', '1'}, {'hset', k, 'f', '1'}, {'hdel', k, 'f'},
    {'pexpire', k, '1'}, {'set', k, '1'}, {'incr', k}, {'lpop', k}, {'rpush', k, 'v'}, {'lrem', k, '0', 'v'},
    {'zadd', k, '1', 'm'}, {'zrem', k, 'm'}, {'zincrby', k, '1', 'm'}, {'publish', ch, 'm'},
    {'config', 'set', 'notify-keyspace-events', 'Kg$hxl'}
}
local refused = {}
for _, c in ipairs(checks) do
    local ok, allowed = pcall(redis.acl_check_cmd, unpack(c))
    if ok and not allowed then
        local name = c[1]
        if name == 'config' then
            name = 'config|set'
        end
        table.insert(refused, name)
    end
end
return refused
