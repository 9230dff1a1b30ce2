-- Records the outcome of a claimed tick, once: only the claim's owner, only while the claim is still
-- in state "claimed". KEYS: claim, defs, through, active, queued, queued-index, finished, history.
-- ARGV: 1 owner, 2 outcome (fired | caught-up | skipped-overlap | queued), 3 tick ms, 4 run id,
-- 5 history entry, 6 claim TTL ms, 7 history max, 8 schedule id.
-- Returns ok | done (someone recorded it) | lost (the claim expired or is another's) | gone.
--@include schedHistoryPush.lua
local raw = redis.call('GET', KEYS[1])
if not raw then return 'lost' end
local ok, c = pcall(cjson.decode, raw)
if not ok or type(c) ~= 'table' then return 'lost' end
if c.state ~= 'claimed' then return 'done' end
if c.owner ~= ARGV[1] then return 'lost' end
c.state = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(c), 'PX', ARGV[6])
if redis.call('HEXISTS', KEYS[2], ARGV[8]) == 0 then return 'gone' end
local through = tonumber(redis.call('HGET', KEYS[3], ARGV[8]) or '0')
if tonumber(ARGV[3]) > through then redis.call('HSET', KEYS[3], ARGV[8], ARGV[3]) end
if ARGV[2] == 'fired' or ARGV[2] == 'caught-up' then
  if not redis.call('ZSCORE', KEYS[7], ARGV[4]) then redis.call('HSET', KEYS[4], ARGV[4], ARGV[3]) end
elseif ARGV[2] == 'queued' then
  redis.call('RPUSH', KEYS[5], ARGV[3])
  redis.call('SADD', KEYS[6], ARGV[8])
end
push_history(KEYS[8], ARGV[5], ARGV[7])
return 'ok'
