/**
 * The approval store's Lua scripts: each operation is one atomic round trip. Every key lives under
 * the `{approvals}` hash tag (see keys.ts), so the scripts that reach a request's key from an id
 * (cancel a run, expire, claim reminders) stay in one Cluster slot.
 *
 * Layout of a request hash: `req` (immutable JSON written by the client, never re-encoded here),
 * `status`, `decisions` (a JSON array that Lua appends to as text), `deadline`, `required`, `owner`,
 * `noself`, `always`, `grace`, `runId`, `jobId` (absent when it equals `runId`), `finishedAt`,
 * `execUntil`, `notifiedAt`, `remindedAt`, `dl:<target>` (delivered), `bo:<target>` (failed sends
 * and the next try, "<failures>|<ms>"), `cur:<approver>` (hash of the
 * live token) and `t:<token hash>` (`{a: approver, s: live|used|replaced, at}`).
 *
 * A run's request ids (`run:<runId>`) are the fields of a small hash, which Redis keeps as a
 * listpack (a set of non-integer members is a hash table before Redis 7.2, ~150 bytes more per
 * parked run); runs parked before that keep their set, so both types are read and added to.
 *
 * Time is always an argument (`now`, ms): the caller's injected Clock decides, so expiry tests move
 * time instead of sleeping. Replies are arrays whose first member is the outcome.
 */

const HELPERS = `
local function ttl_at_least(key, ms)
  local cur = redis.call('PTTL', key)
  if cur < ms then redis.call('PEXPIRE', key, ms) end
end
local function finish(req, id, status, now, base, retention)
  redis.call('HSET', req, 'status', status, 'finishedAt', string.format('%d', now))
  redis.call('ZREM', base .. 'pending', id)
  redis.call('ZREM', base .. 'remind', id)
  redis.call('ZREM', base .. 'unsent', id)
  redis.call('PEXPIRE', req, retention)
  if redis.call('EXISTS', base .. 'fetch:' .. id) == 1 then
    redis.call('PEXPIRE', base .. 'fetch:' .. id, retention)
  end
  redis.call('XADD', base .. 'events', 'MAXLEN', '~', '10000', '*', 'id', id, 'status', status,
    'runId', redis.call('HGET', req, 'runId'), 'jobId', redis.call('HGET', req, 'jobId') or redis.call('HGET', req, 'runId'))
end
local function run_ids(key)
  if redis.call('TYPE', key).ok == 'set' then return redis.call('SMEMBERS', key) end
  return redis.call('HKEYS', key)
end
local function add_run_id(key, id)
  if redis.call('TYPE', key).ok == 'set' then redis.call('SADD', key, id) else redis.call('HSET', key, id, '') end
end
local function snapshot(req, id, base)
  return {redis.call('HGETALL', req), redis.call('LRANGE', base .. 'fetch:' .. id, 0, -1)}
end
`;

/**
 * KEYS: 1 request. ARGV: 1 base, 2 id, 3 req JSON, 4 deadline, 5 remindAt ("" = none), 6 required,
 * 7 owner, 8 noself, 9 always, 10 grace, 11 runId, 12 jobId ("" = the run id), 13 now, 14 retention ms.
 * Creates the request unless it exists; never resets an existing one.
 */
const REGISTER = `${HELPERS}
local base, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {'exists', snapshot(KEYS[1], id, base)}
end
local now, retention = tonumber(ARGV[13]), tonumber(ARGV[14])
redis.call('HSET', KEYS[1], 'req', ARGV[3], 'status', 'pending', 'decisions', '[]', 'deadline', ARGV[4],
  'required', ARGV[6], 'owner', ARGV[7], 'noself', ARGV[8], 'always', ARGV[9], 'grace', ARGV[10],
  'runId', ARGV[11])
if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'jobId', ARGV[12]) end
local ttl = tonumber(ARGV[4]) - now + retention
redis.call('PEXPIRE', KEYS[1], ttl)
add_run_id(base .. 'run:' .. ARGV[11], id)
ttl_at_least(base .. 'run:' .. ARGV[11], ttl)
redis.call('ZADD', base .. 'pending', ARGV[4], id)
redis.call('ZADD', base .. 'unsent', ARGV[13], id)
if ARGV[5] ~= '' then redis.call('ZADD', base .. 'remind', ARGV[5], id) end
redis.call('ZADD', base .. 'all', ARGV[13], id)
redis.call('ZREMRANGEBYSCORE', base .. 'all', '-inf', '(' .. string.format('%d', now - retention))
return {'created', snapshot(KEYS[1], id, base)}
`;

/**
 * KEYS: 1 request. ARGV: 1 base, 2 id, 3 now, 4 actor (token | operator | slack), 5 operator id,
 * 6 token hash, 7 decision (approve | deny), 8 kind (once | always | ""), 9 comment, 10 via,
 * 11 retention ms, 12 "1" when the decider is the run's owner (normalised), 13 "1" when they already
 * decided (normalised). Records one person's decision; refuses a second one and reports the state.
 */
const DECIDE = `${HELPERS}
local base, id = ARGV[1], ARGV[2]
local req = KEYS[1]
if redis.call('EXISTS', req) == 0 then return {'not_found'} end
local now = tonumber(ARGV[3])
local by = ARGV[5]
local tf = nil
if ARGV[4] == 'token' then
  tf = 't:' .. ARGV[6]
  local traw = redis.call('HGET', req, tf)
  if not traw then return {'token_invalid'} end
  local ok, tok = pcall(cjson.decode, traw)
  if not ok or type(tok) ~= 'table' or type(tok.a) ~= 'string' then return {'corrupt'} end
  by = tok.a
  if tok.s == 'used' then return {'token_used', snapshot(req, id, base)} end
  if tok.s == 'replaced' then return {'token_replaced', snapshot(req, id, base)} end
  if tok.s ~= 'live' then return {'corrupt'} end
end
if redis.call('HGET', req, 'status') ~= 'pending' then return {'not_pending', snapshot(req, id, base)} end
if now >= tonumber(redis.call('HGET', req, 'deadline')) then
  finish(req, id, 'expired', now, base, tonumber(ARGV[11]))
  return {'expired', snapshot(req, id, base)}
end
if redis.call('HGET', req, 'noself') == '1' and (ARGV[12] == '1' or redis.call('HGET', req, 'owner') == by) then
  return {'self_approval', snapshot(req, id, base)}
end
if ARGV[8] == 'always' and redis.call('HGET', req, 'always') ~= '1' then
  return {'always_not_allowed', snapshot(req, id, base)}
end
local draw = redis.call('HGET', req, 'decisions')
local decisions = cjson.decode(draw)
local approvals = 0
if ARGV[13] == '1' then return {'already_voted', snapshot(req, id, base)} end
for _, d in ipairs(decisions) do
  if d.by == by then return {'already_voted', snapshot(req, id, base)} end
  if d.decision == 'approve' then approvals = approvals + 1 end
end
local kind = cjson.null
if ARGV[8] ~= '' then kind = ARGV[8] end
local entry = cjson.encode({by = by, at = now, decision = ARGV[7], kind = kind, comment = ARGV[9], via = ARGV[10]})
if draw == '[]' then draw = '[' .. entry .. ']' else draw = string.sub(draw, 1, -2) .. ',' .. entry .. ']' end
redis.call('HSET', req, 'decisions', draw)
if tf then
  redis.call('HSET', req, tf, cjson.encode({a = by, s = 'used', at = now}))
end
if ARGV[7] == 'deny' then
  finish(req, id, 'denied', now, base, tonumber(ARGV[11]))
elseif approvals + 1 >= tonumber(redis.call('HGET', req, 'required')) then
  local until_ms = math.max(tonumber(redis.call('HGET', req, 'deadline')), now + tonumber(redis.call('HGET', req, 'grace')))
  redis.call('HSET', req, 'execUntil', string.format('%d', until_ms))
  finish(req, id, 'approved', now, base, tonumber(ARGV[11]))
end
return {'decided', snapshot(req, id, base)}
`;

/**
 * KEYS: 1 the run's id index. ARGV: 1 base, 2 now, 3 retention ms. Every pending request of the run
 * becomes cancelled; returns their ids.
 */
const CANCEL_RUN = `${HELPERS}
local base, now, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local cancelled = {}
for _, id in ipairs(run_ids(KEYS[1])) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'pending' then
    finish(req, id, 'cancelled', now, base, retention)
    cancelled[#cancelled + 1] = id
  end
end
return cancelled
`;

/**
 * KEYS: 1 the run's request index. ARGV: 1 base. Forgets the run's cancelled requests (withdrawn
 * when the run was cancelled), so the retried run asks its approvers again under the same ids;
 * returns their ids. No other status is touched: a decision stays on record.
 */
const FORGET_CANCELLED = `${HELPERS}
local base = ARGV[1]
local forgotten = {}
local isSet = redis.call('TYPE', KEYS[1]).ok == 'set'
for _, id in ipairs(run_ids(KEYS[1])) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'cancelled' then
    redis.call('DEL', req, base .. 'fetch:' .. id)
    redis.call('ZREM', base .. 'all', id)
    if isSet then redis.call('SREM', KEYS[1], id) else redis.call('HDEL', KEYS[1], id) end
    forgotten[#forgotten + 1] = id
  end
end
return forgotten
`;

/**
 * KEYS: 1 pending index. ARGV: 1 base, 2 now, 3 retention ms, 4 limit. Pending requests whose
 * deadline passed become expired; returns their ids.
 */
const EXPIRE_DUE = `${HELPERS}
local base, now, retention = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local expired = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  if redis.call('HGET', req, 'status') == 'pending' then
    finish(req, id, 'expired', now, base, retention)
    expired[#expired + 1] = id
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return expired
`;

/**
 * KEYS: 1 request. ARGV: 1 approver, 2 token hash, 3 now, 4 slot ("" = the approver's main link).
 * Makes a new live token for the approver in that slot and marks the slot's previous one replaced:
 * one live token per approver and slot. A slot other than "" (`cur:<approver>\0<slot>`) holds the
 * link of a re-sent target, so re-sending never replaces a link that reached the person.
 */
const ISSUE_TOKEN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'not_found' end
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 'not_pending' end
local now = tonumber(ARGV[3])
if now >= tonumber(redis.call('HGET', KEYS[1], 'deadline')) then return 'not_pending' end
local cf = 'cur:' .. ARGV[1]
if ARGV[4] ~= '' then cf = cf .. string.char(0) .. ARGV[4] end
local prev = redis.call('HGET', KEYS[1], cf)
if prev then
  local traw = redis.call('HGET', KEYS[1], 't:' .. prev)
  if traw and cjson.decode(traw).s == 'live' then
    redis.call('HSET', KEYS[1], 't:' .. prev, cjson.encode({a = ARGV[1], s = 'replaced', at = now}))
  end
end
redis.call('HSET', KEYS[1], 't:' .. ARGV[2], cjson.encode({a = ARGV[1], s = 'live', at = now}), cf, ARGV[2])
return 'issued'
`;

/** KEYS: 1 request. ARGV: 1 target, 2 now. Marks one notification target reached. */
const MARK_DELIVERED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'dl:' .. ARGV[1], ARGV[2])
`;

/**
 * KEYS: 1 request. ARGV: 1 target, 2 next try (ms). Counts a failed send to one target of an
 * existing request and records when it may be tried again (`bo:<target>` = "<failures>|<next>").
 * Returns the failure count.
 */
const MARK_TARGET_FAILED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = 'bo:' .. ARGV[1]
local cur = redis.call('HGET', KEYS[1], f)
local n = 1
if cur then n = (tonumber(string.match(cur, '^(%d+)|')) or 0) + 1 end
redis.call('HSET', KEYS[1], f, n .. '|' .. ARGV[2])
return n
`;

/** KEYS: 1 request, 2 unsent index. ARGV: 1 id, 2 now. Marks the notification sent (once). */
const MARK_NOTIFIED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HSETNX', KEYS[1], 'notifiedAt', ARGV[2])
`;

/**
 * KEYS: 1 remind index. ARGV: 1 base, 2 now, 3 lease ms, 4 limit. Claims due reminders of pending,
 * notified requests by pushing their score to now + lease (a crashed sender's claim lapses and the
 * reminder is tried again); drops entries of finished requests. Returns the claimed ids.
 */
const CLAIM_REMINDERS = `
local base, now = ARGV[1], tonumber(ARGV[2])
local claimed = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))) do
  local req = base .. 'req:' .. id
  local status = redis.call('HGET', req, 'status')
  if status ~= 'pending' or now >= tonumber(redis.call('HGET', req, 'deadline')) then
    redis.call('ZREM', KEYS[1], id)
  else
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
    if redis.call('HEXISTS', req, 'notifiedAt') == 1 then claimed[#claimed + 1] = id end
  end
end
return claimed
`;

/** KEYS: 1 request, 2 remind index. ARGV: 1 id, 2 now. Marks the reminder sent (once). */
const MARK_REMINDED = `
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
return redis.call('HSETNX', KEYS[1], 'remindedAt', ARGV[2])
`;

/** KEYS: 1 request, 2 fetch list. ARGV: 1 entry JSON, 2 cap. Records a fetch of an existing request. */
const RECORD_FETCH = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`;

/** KEYS: 1 send lease. ARGV: 1 owner, 2 lease ms. Extends the lease only while `owner` holds it. */
const RENEW_SEND_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
`;

/** KEYS: 1 send lease. ARGV: 1 owner. Gives the lease back only while `owner` holds it. */
const RELEASE_SEND_LEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/**
 * KEYS: 1 promoter position. ARGV: 1 stream id. Moves the stored position forward to the id, never
 * back (promoters in several processes save as they go, in any order). Returns 1 when it moved.
 */
const SAVE_PROMOTER_POSITION = `
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
`;

/**
 * KEYS: 1 promoter position (for the slot). ARGV: 1 base, then pairs of run id and an instant (ms).
 * Returns the run ids that have a request which became final (approved, denied, expired, cancelled)
 * after their instant: runs parked before a decision they have not read yet.
 */
const DECIDED_SINCE = `${HELPERS}
local base = ARGV[1]
local found = {}
for i = 2, #ARGV - 1, 2 do
  local run, since = ARGV[i], tonumber(ARGV[i + 1])
  for _, id in ipairs(run_ids(base .. 'run:' .. run)) do
    local state = redis.call('HMGET', base .. 'req:' .. id, 'status', 'finishedAt')
    if state[1] and state[1] ~= 'pending' and state[2] and tonumber(state[2]) > since then
      found[#found + 1] = run
      break
    end
  end
end
return found
`;

/** Script name (the ioredis command defined for it) → number of keys and Lua source. */
export const APPROVAL_SCRIPTS = {
  echoApprovalRegister: { keys: 1, lua: REGISTER },
  echoApprovalDecide: { keys: 1, lua: DECIDE },
  echoApprovalCancelRun: { keys: 1, lua: CANCEL_RUN },
  echoApprovalForgetCancelled: { keys: 1, lua: FORGET_CANCELLED },
  echoApprovalExpireDue: { keys: 1, lua: EXPIRE_DUE },
  echoApprovalIssueToken: { keys: 1, lua: ISSUE_TOKEN },
  echoApprovalMarkDelivered: { keys: 1, lua: MARK_DELIVERED },
  echoApprovalMarkNotified: { keys: 2, lua: MARK_NOTIFIED },
  echoApprovalMarkTargetFailed: { keys: 1, lua: MARK_TARGET_FAILED },
  echoApprovalClaimReminders: { keys: 1, lua: CLAIM_REMINDERS },
  echoApprovalMarkReminded: { keys: 2, lua: MARK_REMINDED },
  echoApprovalRecordFetch: { keys: 2, lua: RECORD_FETCH },
  echoApprovalRenewSendLease: { keys: 1, lua: RENEW_SEND_LEASE },
  echoApprovalReleaseSendLease: { keys: 1, lua: RELEASE_SEND_LEASE },
  echoApprovalSavePromoterPosition: { keys: 1, lua: SAVE_PROMOTER_POSITION },
  echoApprovalDecidedSince: { keys: 1, lua: DECIDED_SINCE },
} as const;
export type ApprovalScriptName = keyof typeof APPROVAL_SCRIPTS;
