-- A run of a schedule ended: removes it from the active runs and remembers it as finished (so a late
-- FINALIZE or RELEASE of the same run does not mark it active again). Idempotent.
-- KEYS: active, finished, history. ARGV: 1 run id, 2 now ms, 3 history entry, 4 history max,
-- 5 finished cap. Returns 1 the first time, 0 after.
--@include schedHistoryPush.lua
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
push_history(KEYS[3], ARGV[3], ARGV[4])
return 1
