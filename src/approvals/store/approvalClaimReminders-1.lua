-- KEYS: 1 remind index. ARGV: 1 base, 2 now, 3 lease ms, 4 limit. Claims due reminders of pending,
-- notified requests by pushing their score to now + lease (a crashed sender's claim lapses and the
-- reminder is tried again); drops entries of finished requests. Returns the claimed ids.
local base, now = ARGV[1], tonumber(ARGV[2])
local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  -- A damaged request (a key of another type, or no readable deadline) gets no reminder, and must
  -- not fail the script for every request after it.
  local isHash = redis.call('TYPE', req)['ok'] == 'hash'
  local status = isHash and redis.call('HGET', req, 'status')
  local deadline = isHash and tonumber(redis.call('HGET', req, 'deadline'))
  if status ~= 'pending' or not deadline or now >= deadline then
    redis.call('ZREM', KEYS[1], id)
  else
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
    if redis.call('HEXISTS', req, 'notifiedAt') == 1 then claimed[#claimed + 1] = id end
  end
end
return claimed
