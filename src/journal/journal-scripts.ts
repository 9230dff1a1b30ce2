/**
 * The journal's Lua scripts, one per operation, each a single atomic round trip on one run's hash
 * (KEYS[1]). Layout of the hash: `s:<key>` holds the claim state (small JSON this file writes with
 * cjson), `r:<key>` holds the result JSON verbatim as the client sent it — the result never passes
 * through cjson, which would turn `[]` into `{}` and round long numbers.
 *
 * ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME),
 * 6 operation-specific (claim and complete-then-claim: the claim's outbox entry, "" for none; the
 * result JSON for complete; the expected attempt for reclaim); complete adds 7 its outbox entry
 * ("" for none); complete-then-claim adds 7 the key to complete, 8 its result JSON and 9 its outbox
 * entry. Claim, complete and complete-then-claim take, after those, the outbox fields whose entries
 * were delivered (`o:<key>` or `c:<key>`): they are deleted first (see Journal).
 *
 * The outbox: what must still be sent elsewhere (to the audit trail, which lives in another Cluster
 * slot). `o:<key>` is written in the same HSET as the key's result (the call's execution entry), so
 * a result is never recorded without it; `c:<key>` in the same HSET as the key's first claim (the
 * gate decision that let the call run), so a claim is never taken without it.
 * Every reply is `{outcome, stateJson, extra, nowMs}` with "" for empty slots (a Lua nil would cut
 * the array short).
 */

const PRELUDE = `
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
`;

/** Claims `key` for `owner` if nobody ever claimed it; otherwise reports what is there. */
const CLAIM = `${PRELUDE}
acknowledge(7)
return claim(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[6])
`;

/**
 * Records the result of one key the owner holds (ARGV[7], result ARGV[8]), then claims another
 * (ARGV[1]), atomically: the agent loop's "this step is done, the next one starts" in one round trip.
 * If the completion is refused, nothing is claimed and the reply is the completion's (4 slots);
 * otherwise it is the completion's reply followed by the claim's (8 slots).
 */
const COMPLETE_THEN_CLAIM = `${PRELUDE}
acknowledge(10)
local done = complete(ARGV[7], ARGV[2], ARGV[8], ARGV[9])
if done[1] ~= 'completed' and done[1] ~= 'already_completed' then return done end
local claimed = claim(ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[6])
return {done[1], done[2], done[3], done[4], claimed[1], claimed[2], claimed[3], claimed[4]}
`;

/** Takes over an in-doubt claim, but only if it is still the attempt the caller judged. */
const RECLAIM = `${PRELUDE}
local raw, st = load(ARGV[1])
if raw and not st then return unreadable(raw) end
if not raw then return {'absent', '', '', ts} end
if st.status == 'started' and st.leaseUntil <= t and st.attempt == tonumber(ARGV[6]) then
  local s = started(ARGV[2], st.attempt + 1, tonumber(ARGV[3]))
  write(ARGV[1], s, nil)
  return {'claimed', s, '', ts}
end
return existing(ARGV[1], raw, st)
`;

/** Records the result, only for the owner of the claim (fencing). */
const COMPLETE = `${PRELUDE}
acknowledge(8)
return complete(ARGV[1], ARGV[2], ARGV[6], ARGV[7])
`;

/** Extends the lease of a started claim, only for its owner. */
const RENEW = `${PRELUDE}
local raw, st = load(ARGV[1])
if raw and not st then return unreadable(raw) end
if not raw then return {'not_claimed', '', '', ts} end
if st.owner ~= ARGV[2] then return {'not_owner', raw, '', ts} end
if st.status == 'completed' then return {'already_completed', raw, '', ts} end
st.leaseUntil = t + tonumber(ARGV[3])
local s = cjson.encode(st)
write(ARGV[1], s, nil)
return {'renewed', s, '', ts}
`;

/** The whole journal of a run and the current time, in one round trip. */
const READ = `
local t
if ARGV[1] ~= '' then t = tonumber(ARGV[1]) else
  local tm = redis.call('TIME')
  t = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
end
return {string.format('%d', t), redis.call('HGETALL', KEYS[1])}
`;

/**
 * Ends the lease of every open claim of the run now (no ARGV): for a run no worker runs any more
 * (a failed job about to be retried), so its open claims are in doubt at once instead of held by a
 * dead attempt until their leases lapse. Returns how many it ended.
 */
const LAPSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lapsed = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 's:' then
    local ok, st = pcall(cjson.decode, redis.call('HGET', KEYS[1], field))
    if ok and type(st) == 'table' and st.status == 'started' and type(st.leaseUntil) == 'number'
      and st.leaseUntil > now then
      st.leaseUntil = now
      redis.call('HSET', KEYS[1], field, cjson.encode(st))
      lapsed = lapsed + 1
    end
  end
end
return lapsed
`;

/** Script name (the ioredis command defined for it) → Lua source. Names are namespaced to avoid clashes. */
export const JOURNAL_SCRIPTS = {
  echoJournalClaim: CLAIM,
  echoJournalReclaim: RECLAIM,
  echoJournalComplete: COMPLETE,
  echoJournalCompleteThenClaim: COMPLETE_THEN_CLAIM,
  echoJournalRenew: RENEW,
  echoJournalRead: READ,
  echoJournalLapse: LAPSE,
} as const;
export type JournalScriptName = keyof typeof JOURNAL_SCRIPTS;
