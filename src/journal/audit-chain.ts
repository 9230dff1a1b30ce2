import { createHmac } from "node:crypto";
import { canonicalJson, sha256Hex } from "../shared/index.js";

/** The `prev` of the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The hash of an entry: SHA-256 (or HMAC-SHA-256 when a key is configured) over the canonical JSON
 * of `{ prev, entry }`. Chaining `prev` means editing, removing, inserting or reordering an entry
 * breaks every later link.
 */
export function chainHash(prev: string, entry: unknown, hmacKey?: string): string {
  return chainHashOfJson(prev, canonicalJson(entry), hmacKey);
}

/**
 * {@link chainHash} of an entry already encoded as canonical JSON: the append stores that text and
 * hashes it, so each entry is encoded once. `{ prev, entry }` sorts `entry` first, so the material
 * is exactly the canonical JSON of the pair.
 */
export function chainHashOfJson(prev: string, entryJson: string, hmacKey?: string): string {
  const material = `{"entry":${entryJson},"prev":${JSON.stringify(prev)}}`;
  return hmacKey === undefined
    ? sha256Hex(material)
    : createHmac("sha256", hmacKey).update(material, "utf8").digest("hex");
}

/** Keys of the audit trail. One hash tag (`{audit}`), so the append script may touch all of them on a Cluster. */
export interface AuditKeys {
  stream: string;
  head: string;
  /**
   * The stream ids of one trace as a string, each id followed by a space (APPEND). A list of one
   * small element is a quicklist on Redis before 7.2 (232 bytes); a short string is ~100 fewer per
   * trace, and most traces (one parked run) hold one or two ids.
   */
  trace(traceId: string): string;
  /**
   * The trace index as earlier releases wrote it: a list of stream ids (RPUSH). Still read, never
   * written. A new name rather than a new type under the old one, so a worker of the previous
   * release appending during a rolling deploy never meets a string where it RPUSHes (that would
   * fail its script after the XADD, leaving an entry the head does not know).
   */
  legacyTrace(traceId: string): string;
  /**
   * The delivery ids of one trace's entries appended at most once (AuditTrail.appendOnce), each
   * followed by a space: a run's outbox entry found undelivered after a crash is sent again, and
   * this is how the second append knows the first one landed. Expires with the journal retention,
   * as long as such an entry can be left over.
   */
  delivered(traceId: string): string;
}

/** The audit keys under `prefix`. */
export function auditKeys(prefix: string): AuditKeys {
  return {
    stream: `${prefix}:{audit}:stream`,
    head: `${prefix}:{audit}:head`,
    trace: (traceId) => `${prefix}:{audit}:t:${traceId}`,
    legacyTrace: (traceId) => `${prefix}:{audit}:trace:${traceId}`,
    delivered: (traceId) => `${prefix}:{audit}:o:${traceId}`,
  };
}

/**
 * Appends a batch of entries if the chain head is still the one the client hashed the first of them
 * against (compare and append, atomic: all of the batch or none). The client chains the entries among
 * themselves (each `prev` is the hash before it), so one round trip commits what several concurrent
 * callers of one process were waiting to append.
 * KEYS: stream, head, then per entry its trace index and its trace's delivery marks (see
 * {@link AuditKeys.delivered}). ARGV: expected prev hash, seq of the first entry, how long delivery
 * marks are kept (ms), then per entry its hash, entry JSON, "1" to store its `prev` or "0" to leave
 * it out (a v2 entry: its `prev` is the hash of the stream entry before it, which readers take from
 * there), and its delivery id ("" for none).
 * An entry with a delivery id is appended at most once: when its trace's marks already hold the
 * id, nothing is written and the reply names it, so the client drops it and sends the rest again.
 * Replies `{'ok', id1, id2, ...}`, `{'conflict', headHash, headSeq}` so the client can re-hash and
 * retry, or `{'delivered', i, ...}` with the 1-based positions of the entries appended before.
 */
export const AUDIT_APPEND_LUA = `
local head = redis.call('HMGET', KEYS[2], 'hash', 'seq')
local cur = head[1] or '${GENESIS_HASH}'
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
`;

/**
 * The entries of one trace, in order, in one round trip. KEYS: stream, trace index (string), legacy
 * trace index (list). A trace begun before the upgrade has ids in both (and one a previous-release
 * worker appended to during a rolling deploy may interleave them), so the ids are merged in stream
 * order: the stream's ids grow with every append, so that order is the append order. Each reply row
 * is `{id, fields, before}`: `before` is the hash of the stream entry before it (the genesis hash for
 * the first), for an entry stored without its `prev`, else "".
 */
export const AUDIT_READ_TRACE_LUA = `
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
      before = row and (field(row[2], 'hash') or '') or '${GENESIS_HASH}'
    end
    out[i] = {id, found[1][2], before}
  else
    out[i] = {id, {}, ''}
  end
end
return out
`;
