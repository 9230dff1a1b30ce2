-- KEYS: 1 the run's request index. ARGV: 1 base. Forgets the run's cancelled requests (withdrawn
-- when the run was cancelled), so the retried run asks its approvers again under the same ids;
-- returns their ids. No other status is touched: a decision stays on record.
--@include approvalHelpers.lua
local base = ARGV[1]
local forgotten = {}
local isSet = redis.call('TYPE', KEYS[1]).ok == 'set'
for _, id in ipairs(run_ids(KEYS[1])) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'cancelled' then
    redis.call('DEL', req, base .. 'fetch:' .. id)
    redis.call('ZREM', base .. 'all', id)
    if isSet then redis.call('SREM', KEYS[1], id) else redis.call('HDEL', KEYS[1], id) end
    forgotten[#forgotten + 1] = id
  end
end
return forgotten
