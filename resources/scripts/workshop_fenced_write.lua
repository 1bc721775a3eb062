-- Workshop fenced resource: the storage side of a fencing token (protocol §5.2). Not a Redisson
-- script: it stands for the database or file store that a fenced lock protects, which must remember
-- the highest token it has seen and refuse writes that carry an older one.
-- KEYS[1]  the resource, workshop_resource:{name} (HASH: highest_token, last_writer)
-- ARGV[1]  the writer's fencing token (from its last fenced acquire)
-- ARGV[2]  the writer's holder field "<clientId>:<threadId>"
-- Reply:   {1, token} = accepted (highest_token := token); {0, highest} = rejected: an acquire with
--          a higher token has already written, so this writer's lease had expired.
local highest = tonumber(redis.call('hget', KEYS[1], 'highest_token') or '0')
if tonumber(ARGV[1]) < highest then
    return {0, highest}
end
redis.call('hset', KEYS[1], 'highest_token', ARGV[1], 'last_writer', ARGV[2])
return {1, tonumber(ARGV[1])}
