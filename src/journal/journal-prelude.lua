-- Helpers of the journal's scripts (included, not run alone). The run's hash is KEYS[1]:
-- `s:<key>` the claim state (small JSON written here with cjson), `r:<key>` the result JSON verbatim
-- as the client sent it (it never passes through cjson, which would turn `[]` into `{}` and round
-- long numbers), `o:<key>` the outbox entry stored with the result, `c:<key>` the one stored with the
-- key's first claim. Defines t / ts (now), load, started, write, existing, acknowledge, unreadable,
-- claim and complete.
local function now_ms()
  if ARGV[5] ~= '' then return tonumber(ARGV[5]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local t = now_ms()
local ts = string.format('%d', t)
-- The state of one key: raw text (or false) and its decoded table (false if absent or unreadable).
local function load(key)
  local raw = redis.call('HGET', KEYS[1], 's:' .. key)
  if not raw then return false, false end
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and type(decoded) == 'table' and decoded.v == 1
    and (decoded.status == 'started' or decoded.status == 'completed')
    and type(decoded.owner) == 'string' and type(decoded.attempt) == 'number'
    and type(decoded.leaseUntil) == 'number' then
    return raw, decoded
  end
  return raw, false
end
local function started(owner, attempt, lease)
  return cjson.encode({v = 1, status = 'started', owner = owner, attempt = attempt,
    claimedAt = t, leaseUntil = t + lease})
end
local function write(key, state, result, outbox)
  if not result and outbox and outbox ~= '' then
    redis.call('HSET', KEYS[1], 's:' .. key, state, 'c:' .. key, outbox)
  elseif result and outbox and outbox ~= '' then
    redis.call('HSET', KEYS[1], 's:' .. key, state, 'r:' .. key, result, 'o:' .. key, outbox)
  elseif result then
    redis.call('HSET', KEYS[1], 's:' .. key, state, 'r:' .. key, result)
  else
    redis.call('HSET', KEYS[1], 's:' .. key, state)
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
local function existing(key, raw, st)
  if st.status == 'completed' then
    local r = redis.call('HGET', KEYS[1], 'r:' .. key)
    if not r then return {'corrupt', raw, 'it is completed but its result is missing', ts} end
    return {'completed', raw, r, ts}
  end
  if st.leaseUntil > t then return {'held', raw, '', ts} end
  return {'in_doubt', raw, '', ts}
end
-- Deletes the outbox fields in ARGV[from..] (entries their sender has delivered). Runs before any
-- write, so refusing a field that is not an outbox field leaves the hash untouched.
local function acknowledge(from)
  if #ARGV < from then return end
  for i = from, #ARGV do
    local p = string.sub(ARGV[i], 1, 2)
    if p ~= 'o:' and p ~= 'c:' then error('not an outbox field: ' .. ARGV[i]) end
  end
  redis.call('HDEL', KEYS[1], unpack(ARGV, from, #ARGV))
end
local function unreadable(raw)
  return {'corrupt', raw, 'its state is not a v1 journal record', ts}
end
local function claim(key, owner, lease, entry)
  local raw, st = load(key)
  if raw and not st then return unreadable(raw) end
  if not raw then
    local s = started(owner, 1, lease)
    write(key, s, nil, entry)
    return {'claimed', s, '', ts}
  end
  return existing(key, raw, st)
end
local function complete(key, owner, result, outbox)
  local raw, st = load(key)
  if raw and not st then return unreadable(raw) end
  if not raw then return {'not_claimed', '', '', ts} end
  if st.owner ~= owner then return {'not_owner', raw, '', ts} end
  if st.status == 'completed' then
    local r = redis.call('HGET', KEYS[1], 'r:' .. key)
    if not r then return {'corrupt', raw, 'it is completed but its result is missing', ts} end
    return {'already_completed', raw, r, ts}
  end
  st.status = 'completed'
  st.completedAt = t
  local s = cjson.encode(st)
  write(key, s, result, outbox)
  return {'completed', s, '', ts}
end
