-- Compare-and-set on the cursor: of two scrapers folding the same approval events into the wait
-- histogram, one applies them.
-- KEYS[1]: the fold's cursor (a stream id). KEYS[2]: the histogram hash.
-- ARGV[1]: the cursor the caller read. ARGV[2]: the cursor after the batch. ARGV[3..]: pairs of
-- histogram field and increment.
-- Returns 1 when applied, 0 when the cursor had moved (nothing written).
local cur = redis.call('GET', KEYS[1]) or '0'
if cur ~= ARGV[1] then return 0 end
for i = 3, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[1], ARGV[2])
return 1
