-- Adds a run to a budget's set and refreshes the set's expiry, atomically.
-- KEYS[1]: the set ({trace:<id>}:runs or {sched:<id>}:runs:<day>).
-- ARGV[1]: the run id. ARGV[2]: the expiry, ms.
-- Returns 1 (PEXPIRE's answer).
redis.call('SADD', KEYS[1], ARGV[1])
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
