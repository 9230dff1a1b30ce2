-- Moves the oldest queued tick to the active runs once its run was enqueued; compare-and-set on the
-- head of the queue so two releasers record it once. KEYS: queued, active, finished, queued-index,
-- history. ARGV: 1 tick ms, 2 run id, 3 history entry, 4 history max, 5 schedule id.
-- Returns ok | moved.
--@include schedHistoryPush.lua
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 'moved' end
redis.call('LPOP', KEYS[1])
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[4], ARGV[5]) end
if not redis.call('ZSCORE', KEYS[3], ARGV[2]) then redis.call('HSET', KEYS[2], ARGV[2], ARGV[1]) end
push_history(KEYS[5], ARGV[3], ARGV[4])
return 'ok'
