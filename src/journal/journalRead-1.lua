-- The whole journal of a run and the current time, in one round trip.
-- KEYS[1]: the run's journal hash. ARGV[1]: now ms ("" = Redis TIME).
-- Returns {nowMs, HGETALL of the hash}.
local t
if ARGV[1] ~= '' then t = tonumber(ARGV[1]) else
  local tm = redis.call('TIME')
  t = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
end
return {string.format('%d', t), redis.call('HGETALL', KEYS[1])}
