-- Appends a batch of entries if the chain head is still the one the client hashed the first of them
-- against (compare and append, atomic: all of the batch or none). The client chains the entries
-- among themselves (each `prev` is the hash before it), so one round trip commits what several
-- concurrent callers of one process were waiting to append.
-- KEYS (a variable number): 1 stream, 2 head, then per entry its trace index and its trace's
-- delivery marks (AuditKeys.delivered).
-- ARGV: 1 expected prev hash, 2 seq of the first entry, 3 how long delivery marks are kept (ms),
-- then per entry: its hash, entry JSON, "1" to store its `prev` or "0" to leave it out (a v2 entry:
-- its `prev` is the hash of the stream entry before it, which readers take from there), and its
-- delivery id ("" for none). An entry with a delivery id is appended at most once: when its trace's
-- marks already hold the id, nothing is written and the reply names it.
-- Returns {'ok', id1, id2, ...}, {'conflict', headHash, headSeq} so the client can re-hash and
-- retry, or {'delivered', i, ...} with the 1-based positions of the entries appended before.
-- The genesis hash (64 zeros) is GENESIS_HASH of audit-chain.ts.
local head = redis.call('HMGET', KEYS[2], 'hash', 'seq')
local cur = head[1] or '0000000000000000000000000000000000000000000000000000000000000000'
local curSeq = tonumber(head[2] or '0')
local first = tonumber(ARGV[2])
if cur ~= ARGV[1] or curSeq + 1 ~= first then
  return {'conflict', cur, string.format('%d', curSeq)}
end
local n = (#ARGV - 3) / 4
local delivered = {'delivered'}
for i = 1, n do
  local once = ARGV[4 * i + 3]
  if once ~= '' then
    local marks = redis.call('GET', KEYS[2 * i + 2])
    if marks and string.find(' ' .. marks, ' ' .. once .. ' ', 1, true) then
      delivered[#delivered + 1] = tostring(i)
    end
  end
end
if #delivered > 1 then return delivered end
local prev = ARGV[1]
local out = {'ok'}
local id
for i = 1, n do
  local hash = ARGV[4 * i]
  if ARGV[4 * i + 2] == '1' then
    id = redis.call('XADD', KEYS[1], '*', 'entry', ARGV[4 * i + 1], 'prev', prev, 'hash', hash)
  else
    id = redis.call('XADD', KEYS[1], '*', 'entry', ARGV[4 * i + 1], 'hash', hash)
  end
  redis.call('APPEND', KEYS[2 * i + 1], id .. ' ')
  local once = ARGV[4 * i + 3]
  if once ~= '' then
    redis.call('APPEND', KEYS[2 * i + 2], once .. ' ')
    redis.call('PEXPIRE', KEYS[2 * i + 2], ARGV[3])
  end
  out[i + 1] = id
  prev = hash
end
redis.call('HSET', KEYS[2], 'hash', prev, 'seq', string.format('%d', first + n - 1), 'id', id)
return out
