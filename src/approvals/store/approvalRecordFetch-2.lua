-- KEYS: 1 request, 2 fetch list. ARGV: 1 entry JSON, 2 cap. Records a fetch of an existing request.
-- Returns 1 when recorded, 0 when the request is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
