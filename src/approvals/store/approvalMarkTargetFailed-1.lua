-- KEYS: 1 request. ARGV: 1 target, 2 next try (ms). Counts a failed send to one target of an
-- existing request and records when it may be tried again (`bo:<target>` = "<failures>|<next>").
-- Returns the failure count.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = 'bo:' .. ARGV[1]
local cur = redis.call('HGET', KEYS[1], f)
local n = 1
if cur then n = (tonumber(string.match(cur, '^(%d+)|')) or 0) + 1 end
redis.call('HSET', KEYS[1], f, n .. '|' .. ARGV[2])
return n
