-- Renews the leader lock if this process still holds it. KEYS: lock. ARGV: 1 token, 2 lease ms.
-- Returns 1 when renewed, 0 when another process holds the lock (or none does).
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
