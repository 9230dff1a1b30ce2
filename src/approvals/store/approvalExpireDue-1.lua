-- KEYS: 1 pending index. ARGV: 1 base, 2 now, 3 retention ms, 4 limit. Pending requests whose
-- deadline passed become expired; returns their ids.
--@include approvalHelpers.lua
local base, now, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local expired = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'pending' then
    finish(req, id, 'expired', now, base, retention)
    expired[#expired + 1] = id
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return expired
