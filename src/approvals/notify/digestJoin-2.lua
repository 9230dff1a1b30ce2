-- Joins a request to its group's digest window, in one script so two senders cannot both be the
-- first. A joined request keeps its digest in its own hash (`dg`); a request sent on its own stores
-- nothing: a run's window is found from its other requests, a schedule's in one key per schedule.
-- KEYS[1]: req:<id>. KEYS[2]: the schedule's window key (schedule groups) or the run's request index
-- (run groups).
-- ARGV: 1 base, 2 id, 3 group, 4 now, 5 windowMs, 6 ttlMs, 7 kind (schedule | run).
-- Returns "!" when the request is sent on its own (it opens the window) or the digest it joined; a
-- request asked again gets the same answer.
local prior = redis.call('HGET', KEYS[1], 'dg')
if prior then return prior end
local base, id = ARGV[1], ARGV[2]
local now, window = tonumber(ARGV[4]), tonumber(ARGV[5])
local start = nil
if ARGV[7] == 'schedule' then
  local win = redis.call('GET', KEYS[2])
  if win then
    local s, first = string.match(win, '^(%d+)|(.*)$')
    if first == id then return '!' end
    if s and now < tonumber(s) + window then start = s end
  end
  if not start then
    redis.call('SET', KEYS[2], ARGV[4] .. '|' .. id, 'PX', window + 3600000)
    return '!'
  end
else
  -- The run's request index: a hash, a set for runs parked by earlier releases.
  local others
  if redis.call('TYPE', KEYS[2]).ok == 'set' then others = redis.call('SMEMBERS', KEYS[2])
  else others = redis.call('HKEYS', KEYS[2]) end
  for _, other in ipairs(others) do
    if other ~= id then
      local oreq = base .. 'req:' .. other
      if redis.call('HEXISTS', oreq, 'dg') == 0 and redis.call('HGET', oreq, 'status') == 'pending' then
        local ok, fields = pcall(cjson.decode, redis.call('HGET', oreq, 'req') or '')
        local at = ok and type(fields) == 'table' and tonumber(fields.requestedAt) or nil
        if at and at <= now and now < at + window and (start == nil or at < tonumber(start)) then
          start = string.format('%d', at)
        end
      end
    end
  end
  if not start then return '!' end
end
local digest = ARGV[3] .. '@' .. start
local set = base .. 'dg:set:' .. digest
redis.call('SADD', set, id)
redis.call('PEXPIRE', set, ARGV[6])
redis.call('ZADD', base .. 'dg:due', 'NX', tonumber(start) + window, digest)
redis.call('HSET', KEYS[1], 'dg', digest)
return digest
