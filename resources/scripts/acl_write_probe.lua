-- LockScope: which of the commands its writes call may this connection's ACL user run? Read-only,
-- writes nothing. Asked once per connection, so the dashboard can disable an action the user may
-- not perform before the operator confirms it (a refused script names no command). Uses
-- redis.acl_check_cmd (Redis 7.0+).
-- KEYS[1]  a lock name (the key permissions of the checks)
-- KEYS[2]  an unlock channel (the channel permissions of PUBLISH)
-- ARGV     the commands to check, lower case, a subcommand after '|' ("del", "pubsub|numsub",
--          "config|set"): WritePermissions::allCommands(), every command LockScope's write
--          scripts call. Each is checked with arguments of its own shape (below); a name without
--          a shape here is not checked (tst_acl asserts there is none).
-- Reply:   the refused commands, lower case, as given; an error on servers before 7.0 (no
--          redis.acl_check_cmd).
local k = KEYS[1]
local ch = KEYS[2]
local shapes = {
    evalsha = {'x', '1', k}, eval = {'return 1', '1', k}, del = {k}, unlink = {k}, exists = {k}, get = {k},
    set = {k, '1'}, incr = {k}, hexists = {k, 'f'}, hget = {k, 'f'}, hgetall = {k}, hkeys = {k}, hlen = {k},
    hset = {k, 'f', '1'}, hdel = {k, 'f'}, hincrby = {k, 'f', '1'}, pexpire = {k, '1'}, pttl = {k},
    lindex = {k, '0'}, lpop = {k}, rpush = {k, 'v'}, lrange = {k, '0', '1'}, lrem = {k, '0', 'v'},
    zadd = {k, '1', 'm'}, zrem = {k, 'm'}, zincrby = {k, '1', 'm'}, zrange = {k, '0', '1'}, zscore = {k, 'm'},
    publish = {ch, 'm'}, spublish = {ch, 'm'}, ['pubsub|numsub'] = {ch}, ['pubsub|shardnumsub'] = {ch},
    ['config|set'] = {'notify-keyspace-events', 'Kg$hxl'}
}
local refused = {}
for _, name in ipairs(ARGV) do
    local shape = shapes[name]
    if shape ~= nil then
        local command = {}
        for part in string.gmatch(name, '[^|]+') do
            command[#command + 1] = part
        end
        for _, a in ipairs(shape) do
            command[#command + 1] = a
        end
        local ok, allowed = pcall(redis.acl_check_cmd, unpack(command))
        if ok and not allowed then
            table.insert(refused, name)
        end
    end
end
return refused
