-- Claims due digests: each moves to now + lease, so a failed send is tried again, not lost.
-- KEYS[1]: the due index (a sorted set of digests by due time).
-- ARGV: 1 now ms, 2 lease ms, 3 how many at most.
-- Returns the claimed digests.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, d in ipairs(due) do redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), d) end
return due
