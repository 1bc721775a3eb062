-- LockScope: which of the commands its reads call may this connection's ACL user run? Read-only,
-- writes nothing. A script whose inner command is refused only says "The user executing the
-- script can't run this command or subcommand", naming none; this names them, so the operator
-- is told what to grant (e.g. +time). Uses redis.acl_check_cmd (Redis 7.0+).
-- KEYS[1]  a lock name (the key permissions of the checks)
-- ARGV     none
-- Reply:   the refused commands, lower case ("time", "pubsub|numsub", ...), in the order the reads
--          use them; an error on servers before 7.0 (no redis.acl_check_cmd).
local k = KEYS[1]
local checks = {
    {'time'}, {'scan', '0'}, {'hrandfield', k, '17'}, {'hlen', k}, {'hgetall', k}, {'hscan', k, '0'},
    {'pttl', k}, {'exists', k}, {'type', k}, {'llen', k}, {'lrange', k, '0', '0'}, {'zcard', k},
    {'zrange', k, '0', '0', 'withscores'}, {'get', k}, {'pubsub', 'numsub', 'c'}
}
local refused = {}
for _, c in ipairs(checks) do
    local ok, allowed = pcall(redis.acl_check_cmd, unpack(c))
    if ok and not allowed then
        local name = c[1]
        if name == 'pubsub' then
            name = 'pubsub|numsub'
        end
        table.insert(refused, name)
    end
end
return refused
