-- KEYS: 1 promoter position. ARGV: 1 stream id. Moves the stored position forward to the id, never
-- back (promoters in several processes save as they go, in any order). Returns 1 when it moved.
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local ms, seq = parse(ARGV[1])
if not ms then return redis.error_reply('stream id expected, got ' .. ARGV[1]) end
local cur = redis.call('GET', KEYS[1])
if cur then
  local cms, cseq = parse(cur)
  if cms and (cms > ms or (cms == ms and cseq >= seq)) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
return 1
