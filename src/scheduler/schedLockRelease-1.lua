-- Releases the leader lock if this process holds it. KEYS: lock. ARGV: 1 token.
-- Returns 1 when released, 0 when this process did not hold it.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
