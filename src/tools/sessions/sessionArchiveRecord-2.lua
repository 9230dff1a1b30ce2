-- One run archived, atomically (see `record` in session-archive.ts for why not a MULTI).
-- KEYS[1]: the run's value. KEYS[2]: the user's sorted set of runs (one hash tag, one slot).
-- ARGV: 1 value, 2 TTL seconds, 3 startedAt, 4 run id, 5 the oldest score kept ("(" + cutoff),
-- 6 the last rank to drop (-(maxRunsPerUser + 1)).
-- Returns the ids of the runs beyond the count, which the caller drops with their values.
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
local dropped = redis.call('ZRANGE', KEYS[2], 0, ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return dropped
