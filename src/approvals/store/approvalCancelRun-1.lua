-- KEYS: 1 the run's id index. ARGV: 1 base, 2 now, 3 retention ms. Every pending request of the run
-- becomes cancelled; returns their ids.
--@include approvalHelpers.lua
local base, now, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local cancelled = {}
for _, id in ipairs(run_ids(KEYS[1])) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'pending' then
    finish(req, id, 'cancelled', now, base, retention)
    cancelled[#cancelled + 1] = id
  end
end
return cancelled
