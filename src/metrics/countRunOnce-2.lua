-- Counts a run's outcome once: the marker and the increment in one step.
-- KEYS[1]: the run's marker. KEYS[2]: the counter hash.
-- ARGV: 1 the counter's field, 2 how long the marker is kept, ms.
-- Returns 1 when counted, 0 when the run was counted before.
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
  return 1
end
return 0
