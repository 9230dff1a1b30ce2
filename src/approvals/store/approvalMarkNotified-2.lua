-- KEYS: 1 request, 2 unsent index. ARGV: 1 id, 2 now. Marks the notification sent (once).
-- Returns 1 the first time, 0 after (or when the request is gone).
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HSETNX', KEYS[1], 'notifiedAt', ARGV[2])
