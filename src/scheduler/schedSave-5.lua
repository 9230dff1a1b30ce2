-- Writes a schedule with a compare-and-set on its revision.
-- KEYS: defs, through, due, grants, history. ARGV: 1 id, 2 schedule JSON, 3 expected rev ("0" = must
-- not exist), 4 through ms ("" = keep), 5 next tick ms ("" = not due: paused), 6 grant ("" = keep,
-- "-" = delete, else JSON), 7 history max, 8.. history entries (oldest first).
-- Returns ok | exists | missing | conflict.
--@include schedHistoryPush.lua
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local expected = tonumber(ARGV[3])
if expected == 0 then
  if cur then return 'exists' end
else
  if not cur then return 'missing' end
  local ok, d = pcall(cjson.decode, cur)
  if not ok or type(d) ~= 'table' or d.rev ~= expected then return 'conflict' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[4]) end
if ARGV[5] == '' then redis.call('ZREM', KEYS[3], ARGV[1]) else redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) end
if ARGV[6] == '-' then redis.call('HDEL', KEYS[4], ARGV[1])
elseif ARGV[6] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[6]) end
for i = 8, #ARGV do push_history(KEYS[5], ARGV[i], ARGV[7]) end
return 'ok'
