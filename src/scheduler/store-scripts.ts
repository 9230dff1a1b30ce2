/**
 * The scheduler's Lua scripts: each is one atomic round trip over keys that share the `{sched}` hash
 * tag. Stored schedules and history entries pass through verbatim (cjson would turn `[]` into `{}`);
 * only the small claim records and the `rev` of a schedule are decoded here.
 */

const HISTORY_PUSH = `
local function push_history(key, entry, max)
  redis.call('LPUSH', key, entry)
  redis.call('LTRIM', key, 0, tonumber(max) - 1)
end
`;

/**
 * Writes a schedule with a compare-and-set on its revision.
 * KEYS: defs, through, due, grants, history. ARGV: 1 id, 2 schedule JSON, 3 expected rev ("0" = must
 * not exist), 4 through ms ("" = keep), 5 next tick ms ("" = not due: paused), 6 grant ("" = keep,
 * "-" = delete, else JSON), 7 history max, 8.. history entries (oldest first).
 * Returns ok | exists | missing | conflict.
 */
const SAVE = `${HISTORY_PUSH}
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local expected = tonumber(ARGV[3])
if expected == 0 then
  if cur then return 'exists' end
else
  if not cur then return 'missing' end
  local ok, d = pcall(cjson.decode, cur)
  if not ok or type(d) ~= 'table' or d.rev ~= expected then return 'conflict' end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[4]) end
if ARGV[5] == '' then redis.call('ZREM', KEYS[3], ARGV[1]) else redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1]) end
if ARGV[6] == '-' then redis.call('HDEL', KEYS[4], ARGV[1])
elseif ARGV[6] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[6]) end
for i = 8, #ARGV do push_history(KEYS[5], ARGV[i], ARGV[7]) end
return 'ok'
`;

/**
 * Deletes a schedule and everything of it except tick claims (they expire; a schedule re-created
 * under the same id starts from its creation, so they never block it).
 * KEYS: defs, through, due, grants, queued-index, active, finished, queued, history. ARGV: 1 id.
 */
const DELETE = `
local existed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('DEL', KEYS[6], KEYS[7], KEYS[8], KEYS[9])
return existed
`;

/**
 * After the firing loop dealt with ticks up to ARGV[3]: raises the watermark and sets the next tick,
 * only if the schedule is still at the revision the loop read (a change reschedules by itself).
 * KEYS: defs, through, due, history. ARGV: 1 id, 2 rev, 3 through ms, 4 next tick ms, 5 history max,
 * 6.. history entries. Returns ok | conflict.
 */
const ADVANCE = `${HISTORY_PUSH}
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 'conflict' end
local ok, d = pcall(cjson.decode, cur)
if not ok or type(d) ~= 'table' or d.rev ~= tonumber(ARGV[2]) or d.schedule.enabled ~= true then
  return 'conflict'
end
local through = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
if tonumber(ARGV[3]) > through then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
for i = 6, #ARGV do push_history(KEYS[4], ARGV[i], ARGV[5]) end
return 'ok'
`;

/**
 * Records the outcome of a claimed tick, once: only the claim's owner, only while the claim is still
 * in state "claimed". KEYS: claim, defs, through, active, queued, queued-index, finished, history.
 * ARGV: 1 owner, 2 outcome (fired | caught-up | skipped-overlap | queued), 3 tick ms, 4 run id,
 * 5 history entry, 6 claim TTL ms, 7 history max, 8 schedule id.
 * Returns ok | done (someone recorded it) | lost (the claim expired or is another's) | gone.
 */
const FINALIZE = `${HISTORY_PUSH}
local raw = redis.call('GET', KEYS[1])
if not raw then return 'lost' end
local ok, c = pcall(cjson.decode, raw)
if not ok or type(c) ~= 'table' then return 'lost' end
if c.state ~= 'claimed' then return 'done' end
if c.owner ~= ARGV[1] then return 'lost' end
c.state = ARGV[2]
redis.call('SET', KEYS[1], cjson.encode(c), 'PX', ARGV[6])
if redis.call('HEXISTS', KEYS[2], ARGV[8]) == 0 then return 'gone' end
local through = tonumber(redis.call('HGET', KEYS[3], ARGV[8]) or '0')
if tonumber(ARGV[3]) > through then redis.call('HSET', KEYS[3], ARGV[8], ARGV[3]) end
if ARGV[2] == 'fired' or ARGV[2] == 'caught-up' then
  if not redis.call('ZSCORE', KEYS[7], ARGV[4]) then redis.call('HSET', KEYS[4], ARGV[4], ARGV[3]) end
elseif ARGV[2] == 'queued' then
  redis.call('RPUSH', KEYS[5], ARGV[3])
  redis.call('SADD', KEYS[6], ARGV[8])
end
push_history(KEYS[8], ARGV[5], ARGV[7])
return 'ok'
`;

/**
 * Moves the oldest queued tick to the active runs once its run was enqueued; compare-and-set on the
 * head of the queue so two releasers record it once. KEYS: queued, active, finished, queued-index,
 * history. ARGV: 1 tick ms, 2 run id, 3 history entry, 4 history max, 5 schedule id.
 * Returns ok | moved.
 */
const RELEASE = `${HISTORY_PUSH}
if redis.call('LINDEX', KEYS[1], 0) ~= ARGV[1] then return 'moved' end
redis.call('LPOP', KEYS[1])
if redis.call('LLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[4], ARGV[5]) end
if not redis.call('ZSCORE', KEYS[3], ARGV[2]) then redis.call('HSET', KEYS[2], ARGV[2], ARGV[1]) end
push_history(KEYS[5], ARGV[3], ARGV[4])
return 'ok'
`;

/**
 * A run of a schedule ended: removes it from the active runs and remembers it as finished (so a late
 * FINALIZE or RELEASE of the same run does not mark it active again). Idempotent.
 * KEYS: active, finished, history. ARGV: 1 run id, 2 now ms, 3 history entry, 4 history max,
 * 5 finished cap. Returns 1 the first time, 0 after.
 */
const FINISH = `${HISTORY_PUSH}
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
push_history(KEYS[3], ARGV[3], ARGV[4])
return 1
`;

/**
 * Claims a batch of ticks: SET NX PX on each claim key, in one round trip. KEYS: the claim keys.
 * ARGV: 1 the claim JSON ({owner, state: claimed, at}), 2 lease ms. Returns, per key, "" when this
 * call claimed it, else the claim already there (someone is firing it, or it was dealt with).
 */
const CLAIM_MANY = `
local out = {}
for i = 1, #KEYS do
  if redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2], 'NX') then
    out[i] = ''
  else
    out[i] = redis.call('GET', KEYS[i]) or '{}'
  end
end
return out
`;

/** Appends history entries. KEYS: history. ARGV: 1 max, 2.. entries. */
const APPEND = `${HISTORY_PUSH}
for i = 2, #ARGV do push_history(KEYS[1], ARGV[i], ARGV[1]) end
return 1
`;

/** Renews the leader lock if this process still holds it. KEYS: lock. ARGV: 1 token, 2 lease ms. */
const LOCK_RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Releases the leader lock if this process holds it. KEYS: lock. ARGV: 1 token. */
const LOCK_RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Script name (as an ioredis command) → key count (null: the caller passes it first) and source.
 * Names are prefixed to avoid clashes.
 */
export const SCHEDULER_SCRIPTS = {
  schedClaimMany: { keys: null, lua: CLAIM_MANY },
  schedSave: { keys: 5, lua: SAVE },
  schedDelete: { keys: 9, lua: DELETE },
  schedAdvance: { keys: 4, lua: ADVANCE },
  schedFinalize: { keys: 8, lua: FINALIZE },
  schedRelease: { keys: 5, lua: RELEASE },
  schedFinish: { keys: 3, lua: FINISH },
  schedAppend: { keys: 1, lua: APPEND },
  schedLockRenew: { keys: 1, lua: LOCK_RENEW },
  schedLockRelease: { keys: 1, lua: LOCK_RELEASE },
} as const;

export type SchedulerScriptName = keyof typeof SCHEDULER_SCRIPTS;
