-- Ends the lease of every open claim of the run now: for a run no worker runs any more (a failed
-- job about to be retried), so its open claims are in doubt at once instead of held by a dead
-- attempt until their leases lapse.
-- KEYS[1]: the run's journal hash. No ARGV.
-- Returns how many leases it ended.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lapsed = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then
    local ok, st = pcall(cjson.decode, redis.call('HGET', KEYS[1], field))
    if ok and type(st) == 'table' and st.status == 'started' and type(st.leaseUntil) == 'number'
      and st.leaseUntil > now then
      st.leaseUntil = now
      redis.call('HSET', KEYS[1], field, cjson.encode(st))
      lapsed = lapsed + 1
    end
  end
end
return lapsed
