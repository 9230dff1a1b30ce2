-- KEYS: 1 send lease. ARGV: 1 owner. Gives the lease back only while `owner` holds it.
-- Returns 1 when given back, 0 when `owner` did not hold it.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
