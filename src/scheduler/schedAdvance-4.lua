-- After the firing loop dealt with ticks up to ARGV[3]: raises the watermark and sets the next tick,
-- only if the schedule is still at the revision the loop read (a change reschedules by itself).
-- KEYS: defs, through, due, history. ARGV: 1 id, 2 rev, 3 through ms, 4 next tick ms, 5 history max,
-- 6.. history entries. Returns ok | conflict.
--@include schedHistoryPush.lua
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 'conflict' end
local ok, d = pcall(cjson.decode, cur)
if not ok or type(d) ~= 'table' or d.rev ~= tonumber(ARGV[2]) or d.schedule.enabled ~= true then
  return 'conflict'
end
local through = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if tonumber(ARGV[3]) > through then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
for i = 6, #ARGV do push_history(KEYS[4], ARGV[i], ARGV[5]) end
return 'ok'
