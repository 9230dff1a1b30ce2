-- KEYS: 1 send lease. ARGV: 1 owner, 2 lease ms. Extends the lease only while `owner` holds it.
-- Returns 1 when extended, 0 when `owner` does not hold it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
