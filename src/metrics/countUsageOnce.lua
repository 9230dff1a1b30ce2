-- Counts a run's usage once: the marker, then one HINCRBYFLOAT per family.
-- KEYS: 1 the run's marker, then one counter hash per family.
-- ARGV: 1 the marker's TTL ms, 2 the field, then the amount for each family in KEYS order.
-- Returns 1 when counted, 0 when counted before.
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  for i = 2, #KEYS do
    redis.call('HINCRBYFLOAT', KEYS[i], ARGV[2], ARGV[i + 1])
  end
  return 1
end
return 0
