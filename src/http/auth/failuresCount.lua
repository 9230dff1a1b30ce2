-- Counts one failure on every counter; a new counter starts a window.
-- KEYS: failure counters (any number, one hash tag).
-- ARGV[1]: the window, ms.
-- Returns 1.
for i = 1, #KEYS do
  local n = redis.call('INCR', KEYS[i])
  if n == 1 or redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
end
return 1
