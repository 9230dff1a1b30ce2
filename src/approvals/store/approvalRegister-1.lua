-- KEYS: 1 request. ARGV: 1 base, 2 id, 3 req JSON, 4 deadline, 5 remindAt ("" = none), 6 required,
-- 7 owner, 8 noself, 9 always, 10 grace, 11 runId, 12 jobId ("" = the run id), 13 now, 14 retention ms.
-- Creates the request unless it exists; never resets an existing one.
-- Returns {'created' | 'exists', snapshot}.
--@include approvalHelpers.lua
local base, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists', snapshot(KEYS[1], id, base)}
end
local now, retention = tonumber(ARGV[13]), tonumber(ARGV[14])
redis.call('HSET', KEYS[1], 'req', ARGV[3], 'status', 'pending', 'decisions', '[]', 'deadline', ARGV[4],
  'required', ARGV[6], 'owner', ARGV[7], 'noself', ARGV[8], 'always', ARGV[9], 'grace', ARGV[10],
  'runId', ARGV[11])
if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'jobId', ARGV[12]) end
local ttl = tonumber(ARGV[4]) - now + retention
redis.call('PEXPIRE', KEYS[1], ttl)
add_run_id(base .. 'run:' .. ARGV[11], id)
ttl_at_least(base .. 'run:' .. ARGV[11], ttl)
redis.call('ZADD', base .. 'pending', ARGV[4], id)
redis.call('ZADD', base .. 'unsent', ARGV[13], id)
if ARGV[5] ~= '' then redis.call('ZADD', base .. 'remind', ARGV[5], id) end
redis.call('ZADD', base .. 'all', ARGV[13], id)
redis.call('ZREMRANGEBYSCORE', base .. 'all', '-inf', '(' .. string.format('%d', now - retention))
return {'created', snapshot(KEYS[1], id, base)}
