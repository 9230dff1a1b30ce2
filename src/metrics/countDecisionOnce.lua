-- Counts a tool-call decision once per run, call, verdict and step: a replay that re-audits the same
-- decision (a parent waking to read its delegated child) finds it already counted.
-- KEYS: 1 the counter, 2 today's set of counted decisions (the member's shard), 3 .. 2+ARGV[7] the
-- same shard's sets of the days before, then the sets of the earlier shape (22-character members,
-- ARGV[6]; today's and the days before), the last the run's hash of the releases before that (its
-- two field shapes are ARGV[4] and ARGV[5]), so a decision counted before an upgrade is not counted
-- again.
-- ARGV: 1 the member, 2 the counter's field, 3 in how many ms today's set expires (relative, so a
-- worker's clock off from the server's does not expire it at once), 4 and 5 the legacy fields, 6 the
-- earlier-shape member, 7 how many days of sets follow today's.
-- Returns 1 when counted, 0 when counted before.
local legacy = KEYS[#KEYS]
if redis.call('EXISTS', legacy) == 1 and
  (redis.call('HEXISTS', legacy, ARGV[4]) == 1 or redis.call('HEXISTS', legacy, ARGV[5]) == 1) then
  return 0
end
local days = tonumber(ARGV[7])
for i = 3, 2 + days do
  if redis.call('SISMEMBER', KEYS[i], ARGV[1]) == 1 then return 0 end
end
for i = 3 + days, #KEYS - 1 do
  if redis.call('SISMEMBER', KEYS[i], ARGV[6]) == 1 then return 0 end
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('HINCRBY', KEYS[1], ARGV[2], 1)
  return 1
end
return 0
