-- RLock forceUnlock / delete: Redisson RedissonLock.forceUnlockAsync (protocol §2.4, §9).
-- Calls too: publish spublish (named by a variable, not a literal; WritePermissions reads this line)
-- KEYS[1]  lock name
-- KEYS[2]  unlock channel redisson_lock__channel:{name}
-- ARGV[1]  unlock message, "0"
-- ARGV[2]  publish command, "publish" or "spublish"
-- Reply:   1 = the lock existed and was deleted, waiters were told with ARGV[1]; 0 = no such lock.
if redis.call('del', KEYS[1]) == 1 then
    redis.call(ARGV[2], KEYS[2], ARGV[1])
    return 1
end
return 0
