-- Deletes a schedule and everything of it except tick claims (they expire; a schedule re-created
-- under the same id starts from its creation, so they never block it).
-- KEYS: defs, through, due, grants, queued-index, active, finished, queued, history. ARGV: 1 id.
-- Returns 1 when the schedule existed, else 0.
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('DEL', KEYS[6], KEYS[7], KEYS[8], KEYS[9])
return existed
