-- KEYS: 1 pending index. ARGV: 1 base, 2 now, 3 retention ms, 4 limit. Pending requests whose
-- deadline passed become expired; returns their ids.
--@include approvalHelpers.lua
local base, now, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local expired = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  -- A key of another type (a damaged request) is no hash to read: without this check its HGET
  -- would fail the whole script, and no request after it would ever expire. Its deadline (the
  -- score) has passed: it leaves the pending index like any request no longer pending.
  if redis.call('TYPE', req)['ok'] == 'hash' and redis.call('HGET', req, 'status') == 'pending' then
    finish(req, id, 'expired', now, base, retention)
    expired[#expired + 1] = id
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return expired
