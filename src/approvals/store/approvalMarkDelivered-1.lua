-- KEYS: 1 request. ARGV: 1 target, 2 now. Marks one notification target reached.
-- Returns 1 the first time, 0 after (or when the request is gone).
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'dl:' .. ARGV[1], ARGV[2])
