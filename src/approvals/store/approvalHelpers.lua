-- Helpers of the approval store's scripts (included, not run alone): ttl_at_least, finish (a request
-- reaches a final status: indexes, retention, the decision event), run_ids and add_run_id (a run's
-- request index, a hash or a set of earlier releases), snapshot (a request's hash and fetch list).
-- The request hash's layout is in approval-scripts.ts.
local function ttl_at_least(key, ms)
  local cur = redis.call('PTTL', key)
  if cur < ms then redis.call('PEXPIRE', key, ms) end
end
local function finish(req, id, status, now, base, retention)
  redis.call('HSET', req, 'status', status, 'finishedAt', string.format('%d', now))
  redis.call('ZREM', base .. 'pending', id)
  redis.call('ZREM', base .. 'remind', id)
  redis.call('ZREM', base .. 'unsent', id)
  redis.call('PEXPIRE', req, retention)
  if redis.call('EXISTS', base .. 'fetch:' .. id) == 1 then
    redis.call('PEXPIRE', base .. 'fetch:' .. id, retention)
  end
  redis.call('XADD', base .. 'events', 'MAXLEN', '~', '10000', '*', 'id', id, 'status', status,
    'runId', redis.call('HGET', req, 'runId'), 'jobId', redis.call('HGET', req, 'jobId') or redis.call('HGET', req, 'runId'))
end
local function run_ids(key)
  if redis.call('TYPE', key).ok == 'set' then return redis.call('SMEMBERS', key) end
  return redis.call('HKEYS', key)
end
local function add_run_id(key, id)
  if redis.call('TYPE', key).ok == 'set' then redis.call('SADD', key, id) else redis.call('HSET', key, id, '') end
end
local function snapshot(req, id, base)
  return {redis.call('HGETALL', req), redis.call('LRANGE', base .. 'fetch:' .. id, 0, -1)}
end
