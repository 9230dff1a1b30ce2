-- KEYS: 1 remind index. ARGV: 1 base, 2 now, 3 lease ms, 4 limit. Claims due reminders of pending,
-- notified requests by pushing their score to now + lease (a crashed sender's claim lapses and the
-- reminder is tried again); drops entries of finished requests. Returns the claimed ids.
local base, now = ARGV[1], tonumber(ARGV[2])
local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  local status = redis.call('HGET', req, 'status')
  if status ~= 'pending' or now >= tonumber(redis.call('HGET', req, 'deadline')) then
    redis.call('ZREM', KEYS[1], id)
  else
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
    if redis.call('HEXISTS', req, 'notifiedAt') == 1 then claimed[#claimed + 1] = id end
  end
end
return claimed
