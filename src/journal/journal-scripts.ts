/**
 * The journal's Lua scripts, one per operation, each a single atomic round trip on one run's hash
 * (KEYS[1]). Layout of the hash: `s:<key>` holds the claim state (small JSON this file writes with
 * cjson), `r:<key>` holds the result JSON verbatim as the client sent it — the result never passes
 * through cjson, which would turn `[]` into `{}` and round long numbers.
 *
 * ARGV: 1 idempotency key, 2 owner, 3 lease ms, 4 retention ms, 5 now ms ("" = Redis TIME),
 * 6 operation-specific (result JSON for complete, expected attempt for reclaim).
 * Every reply is `{outcome, stateJson, extra, nowMs}` with "" for empty slots (a Lua nil would cut
 * the array short).
 */

const PRELUDE = `
local sf = 's:' .. ARGV[1]
local rf = 'r:' .. ARGV[1]
local function now_ms()
  if ARGV[5] ~= '' then return tonumber(ARGV[5]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local t = now_ms()
local ts = string.format('%d', t)
local raw = redis.call('HGET', KEYS[1], sf)
local st = false
if raw then
  local ok, decoded = pcall(cjson.decode, raw)
  if ok and type(decoded) == 'table' and decoded.v == 1
    and (decoded.status == 'started' or decoded.status == 'completed')
    and type(decoded.owner) == 'string' and type(decoded.attempt) == 'number'
    and type(decoded.leaseUntil) == 'number' then
    st = decoded
  end
end
local function started(owner, attempt, lease)
  return cjson.encode({v = 1, status = 'started', owner = owner, attempt = attempt,
    claimedAt = t, leaseUntil = t + lease})
end
local function write(state, result)
  if result then
    redis.call('HSET', KEYS[1], sf, state, rf, result)
  else
    redis.call('HSET', KEYS[1], sf, state)
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
local function existing()
  if st.status == 'completed' then
    local r = redis.call('HGET', KEYS[1], rf)
    if not r then return {'corrupt', raw, 'it is completed but its result is missing', ts} end
    return {'completed', raw, r, ts}
  end
  if st.leaseUntil > t then return {'held', raw, '', ts} end
  return {'in_doubt', raw, '', ts}
end
if raw and not st then return {'corrupt', raw, 'its state is not a v1 journal record', ts} end
`;

/** Claims `key` for `owner` if nobody ever claimed it; otherwise reports what is there. */
const CLAIM = `${PRELUDE}
if not raw then
  local s = started(ARGV[2], 1, tonumber(ARGV[3]))
  write(s, nil)
  return {'claimed', s, '', ts}
end
return existing()
`;

/** Takes over an in-doubt claim, but only if it is still the attempt the caller judged. */
const RECLAIM = `${PRELUDE}
if not raw then return {'absent', '', '', ts} end
if st.status == 'started' and st.leaseUntil <= t and st.attempt == tonumber(ARGV[6]) then
  local s = started(ARGV[2], st.attempt + 1, tonumber(ARGV[3]))
  write(s, nil)
  return {'claimed', s, '', ts}
end
return existing()
`;

/** Records the result, only for the owner of the claim (fencing). */
const COMPLETE = `${PRELUDE}
if not raw then return {'not_claimed', '', '', ts} end
if st.owner ~= ARGV[2] then return {'not_owner', raw, '', ts} end
if st.status == 'completed' then
  local r = redis.call('HGET', KEYS[1], rf)
  if not r then return {'corrupt', raw, 'it is completed but its result is missing', ts} end
  return {'already_completed', raw, r, ts}
end
st.status = 'completed'
st.completedAt = t
local s = cjson.encode(st)
write(s, ARGV[6])
return {'completed', s, '', ts}
`;

/** Extends the lease of a started claim, only for its owner. */
const RENEW = `${PRELUDE}
if not raw then return {'not_claimed', '', '', ts} end
if st.owner ~= ARGV[2] then return {'not_owner', raw, '', ts} end
if st.status == 'completed' then return {'already_completed', raw, '', ts} end
st.leaseUntil = t + tonumber(ARGV[3])
local s = cjson.encode(st)
write(s, nil)
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

/** Script name (the ioredis command defined for it) → Lua source. Names are namespaced to avoid clashes. */
export const JOURNAL_SCRIPTS = {
  echoJournalClaim: CLAIM,
  echoJournalReclaim: RECLAIM,
  echoJournalComplete: COMPLETE,
  echoJournalRenew: RENEW,
  echoJournalRead: READ,
} as const;
export type JournalScriptName = keyof typeof JOURNAL_SCRIPTS;
