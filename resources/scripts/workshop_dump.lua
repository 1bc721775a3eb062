-- Workshop sandbox dump: every key of the private workshop redis-server, read in one atomic step
-- so the "keys before/after" of a workshop step are one consistent picture. Read-only. It uses
-- KEYS, which is acceptable only because the workshop server is private and holds a handful of
-- keys; never run it against a shared server. Not a Redisson script.
-- KEYS     none
-- ARGV     none
-- Reply:   array of {key, type, pttl, contents}: contents = HGETALL (hash), LRANGE 0 -1 (list),
--          ZRANGE 0 -1 WITHSCORES (zset), {GET} (string), SMEMBERS (set), {} otherwise.
local out = {}
for _, k in ipairs(redis.call('keys', '*')) do
    local t = redis.call('type', k)['ok']
    local v = {}
    if t == 'hash' then
        v = redis.call('hgetall', k)
    elseif t == 'list' then
        v = redis.call('lrange', k, 0, -1)
    elseif t == 'zset' then
        v = redis.call('zrange', k, 0, -1, 'withscores')
    elseif t == 'string' then
        v = {redis.call('get', k)}
    elseif t == 'set' then
        v = redis.call('smembers', k)
    end
    table.insert(out, {k, t, redis.call('pttl', k), v})
end
return out
