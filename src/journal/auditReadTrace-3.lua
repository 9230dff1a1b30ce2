-- The entries of one trace, in order, in one round trip. A trace begun before the upgrade has ids in
-- both indexes (and one a previous-release worker appended to during a rolling deploy may interleave
-- them), so the ids are merged in stream order: the stream's ids grow with every append, so that
-- order is the append order.
-- KEYS: 1 stream, 2 trace index (a string of ids), 3 legacy trace index (a list). No ARGV.
-- Returns rows {id, fields, before}: `before` is the hash of the stream entry before it (the genesis
-- hash, 64 zeros, for the first) for an entry stored without its `prev`, else "".
local ids = redis.call('LRANGE', KEYS[3], 0, -1)
local legacy = #ids
local joined = redis.call('GET', KEYS[2])
if joined then
  for id in string.gmatch(joined, '%S+') do ids[#ids + 1] = id end
end
if legacy > 0 and #ids > legacy then
  local function parts(id)
    local ms, seq = string.match(id, '^(%d+)-(%d+)$')
    return tonumber(ms) or 0, tonumber(seq) or 0
  end
  table.sort(ids, function(a, b)
    local ams, aseq = parts(a)
    local bms, bseq = parts(b)
    if ams ~= bms then return ams < bms end
    return aseq < bseq
  end)
end
local function field(fields, name)
  for j = 1, #fields - 1, 2 do
    if fields[j] == name then return fields[j + 1] end
  end
  return nil
end
local out = {}
for i, id in ipairs(ids) do
  local found = redis.call('XRANGE', KEYS[1], id, id)
  if found[1] then
    local before = ''
    if not field(found[1][2], 'prev') then
      local row = redis.call('XREVRANGE', KEYS[1], '(' .. id, '-', 'COUNT', 1)[1]
      before = row and (field(row[2], 'hash') or '') or '0000000000000000000000000000000000000000000000000000000000000000'
    end
    out[i] = {id, found[1][2], before}
  else
    out[i] = {id, {}, ''}
  end
end
return out
