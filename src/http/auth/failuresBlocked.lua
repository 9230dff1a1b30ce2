-- How long a client must wait: read-only, so checking costs nothing on the counters.
-- KEYS: failure counters (any number, one hash tag).
-- ARGV: the limit of each key, in order.
-- Returns the longest time left (ms) of any counter at or over its limit, or 0.
local wait = 0
for i = 1, #KEYS do
  local n = tonumber(redis.call('GET', KEYS[i]) or '0')
  if n >= tonumber(ARGV[i]) then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 1 then ttl = 1 end
    if ttl > wait then wait = ttl end
  end
end
return wait
