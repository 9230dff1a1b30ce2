-- Claims a batch of ticks: SET NX PX on each claim key, in one round trip. KEYS: the claim keys.
-- ARGV: 1 the claim JSON ({owner, state: claimed, at}), 2 lease ms. Returns, per key, "" when this
-- call claimed it, else the claim already there (someone is firing it, or it was dealt with).
local out = {}
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2], 'NX') then
    out[i] = ''
  else
    out[i] = redis.call('GET', KEYS[i]) or '{}'
  end
end
return out
