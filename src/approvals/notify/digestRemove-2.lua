-- Removes sent members; an emptied digest leaves the due index.
-- KEYS[1]: the digest's member set. KEYS[2]: the due index.
-- ARGV: the sent request ids, then the digest.
-- Returns 1.
for i = 1, #ARGV - 1 do redis.call('SREM', KEYS[1], ARGV[i]) end
if redis.call('SCARD', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[#ARGV]) end
return 1
