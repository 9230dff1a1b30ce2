-- Writes a field unless the hash is full; replacing an existing field is always allowed.
-- KEYS[1]: the memory scope's hash.
-- ARGV: 1 the memory's key, 2 its text, 3 the most entries a scope holds.
-- Returns 1 when written, 0 when the scope is full.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
