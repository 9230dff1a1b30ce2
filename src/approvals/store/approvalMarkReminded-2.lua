-- KEYS: 1 request, 2 remind index. ARGV: 1 id, 2 now. Marks the reminder sent (once).
-- Returns 1 the first time, 0 after (or when the request is gone).
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'remindedAt', ARGV[2])
