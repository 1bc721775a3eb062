-- LockScope repair: wake clients waiting for a lock that is already free (doctor finding
-- waiters_without_holder): publish the unlock message they missed, "0" on
-- redisson_lock__channel:{name} (protocol §1.5). Refused when the lock is held: that is what
-- force unlock is for.
-- KEYS[1] lock name, KEYS[2] unlock channel
-- ARGV[1] "publish" or "spublish"
-- Reply: number of receivers (>= 0), or -1 when the lock exists (refused)
if redis.call('exists', KEYS[1]) == 1 then
    return -1
end
return redis.call(ARGV[1], KEYS[2], '0')
