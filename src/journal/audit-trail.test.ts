import type { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { canonicalJson, isRunnerError, ManualClock } from "../shared/index.js";
import { auditKeys, chainHash, chainHashOfJson, GENESIS_HASH } from "./audit-chain.js";
import { type AuditEvent, decodeAuditFields, storedAuditEntry } from "./audit-entry.js";
import { REDACTED } from "./audit-redact.js";
import { AuditTrail } from "./audit-trail.js";
import { verifyAudit } from "./audit-verify.js";

const redis = testRedisClient();
const root = uniquePrefix("audit");
const clock = new ManualClock(1_700_000_000_000);
let prefix: string;
let trail: AuditTrail;
let n = 0;

beforeEach(() => {
  prefix = `${root}-${++n}`;
  trail = new AuditTrail({ redis, keyPrefix: prefix, clock });
});

afterAll(async () => {
  await deleteKeysWithPrefix(redis, root);
  redis.disconnect();
});

function decision(traceId: string, i = 0): AuditEvent {
  return {
    kind: "decision",
    traceId,
    executionId: `exec-${i}`,
    tool: "write_file",
    risk: "write",
    capabilities: ["fs.write"],
    verdict: "allow",
    step: 5,
    reason: `write not flagged #${i}`,
    approvalSource: "auto",
  };
}

function execution(traceId: string, i = 0): AuditEvent {
  return {
    kind: "execution",
    traceId,
    executionId: `exec-${i}`,
    tool: "write_file",
    risk: "write",
    capabilities: ["fs.write"],
    outcome: "success",
    durationMs: 12,
    isReplay: false,
    idempotencyKey: `key-${i}`,
  };
}

async function appendMany(count: number, traceId = "trace-a"): Promise<void> {
  for (let i = 0; i < count; i++)
    await trail.append(i % 2 === 0 ? decision(traceId, i) : execution(traceId, i));
}

type Raw = [id: string, fields: string[]];

/** Rebuilds the stream from `transform(entries)` with fresh increasing ids (as an attacker with Redis access could). */
async function rewrite(transform: (entries: Raw[]) => Raw[]): Promise<void> {
  const { stream } = auditKeys(prefix);
  const entries = (await redis.xrange(stream, "-", "+")) as Raw[];
  const next = transform(entries.map(([id, fields]) => [id, [...fields]]));
  await redis.del(stream);
  let i = 0;
  for (const [, fields] of next) await redis.xadd(stream, `${++i}-1`, ...fields);
}

function field(fields: string[], name: string): string {
  return fields[fields.indexOf(name) + 1]!;
}

function setField(fields: string[], name: string, value: string): void {
  fields[fields.indexOf(name) + 1] = value;
}

describe("AuditTrail append and read", () => {
  it("chains entries, reads a trace back in order and verifies the chain", async () => {
    const first = await trail.append(decision("trace-a"));
    await trail.append(decision("trace-b", 1));
    const third = await trail.append(execution("trace-a", 2));
    expect([first.seq, third.seq]).toEqual([1, 3]);
    const records = await trail.readByTrace("trace-a");
    expect(records.map((r) => r.entry.seq)).toEqual([1, 3]);
    expect(records[0]).toMatchObject({ id: first.id, hash: first.hash, prev: "0".repeat(64) });
    expect(records[0]?.entry).toEqual({ ...decision("trace-a"), v: 1, seq: 1, at: clock.now() });
    expect(records[1]?.entry).toMatchObject({ kind: "execution", outcome: "success", durationMs: 12 });
    expect(await trail.verify()).toEqual({ ok: true, checked: 3, head: { hash: third.hash, seq: 3 } });
    expect(await trail.readByTrace("trace-none")).toEqual([]);
  });

  it("verifies an empty trail", async () => {
    expect(await trail.verify()).toEqual({ ok: true, checked: 0, head: null });
  });

  it("redacts secret-named fields before they reach Redis", async () => {
    await trail.append({
      ...decision("trace-s"),
      reason: "called with Authorization: Bearer sk-live-abcdef",
      detail: { headers: { authorization: "Bearer sk-live-abcdef", "x-api-key": "k-123" }, path: "a.txt" },
    });
    const raw = JSON.stringify(await redis.xrange(auditKeys(prefix).stream, "-", "+"));
    expect(raw).not.toContain("sk-live-abcdef");
    expect(raw).not.toContain("k-123");
    const [record] = await trail.readByTrace("trace-s");
    expect(record?.entry.detail).toEqual({
      headers: { authorization: REDACTED, "x-api-key": REDACTED },
      path: "a.txt",
    });
    expect((await trail.verify()).ok).toBe(true);
  });

  it.each([
    ["an unknown risk", { risk: "harmless" }],
    ["an unknown capability", { capabilities: ["fs.everything"] }],
    ["a gate step outside 1-11", { step: 12 }],
    ["a trace id with a brace", { traceId: "a{b}" }],
    ["an unknown field", { extra: 1 }],
  ])("refuses an event with %s and writes nothing", async (_label, change) => {
    const err = await trail
      .append({ ...decision("trace-x"), ...change } as AuditEvent)
      .catch((e: unknown) => e);
    expect(isRunnerError(err, "AUDIT_ENTRY_INVALID")).toBe(true);
    expect(await redis.exists(auditKeys(prefix).stream)).toBe(0);
    await trail.append(decision("trace-x"));
    expect((await trail.verify()).ok).toBe(true);
  });

  it("commits appends that wait on one in flight together, each caller getting its own place", async () => {
    const client = testRedisClient();
    let scripts = 0;
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: { name: string }, stream?: unknown) => {
      if (/^eval/i.test(command.name)) scripts++;
      return send(command as never, stream as never);
    }) as typeof client.sendCommand;
    try {
      const writer = new AuditTrail({ redis: client, keyPrefix: prefix, clock });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          writer.append(i % 2 === 0 ? decision(`trace-${i % 3}`, i) : execution(`trace-${i % 3}`, i)),
        ),
      );
      expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      // The first append goes alone; the 49 queued behind it share the next round trip.
      expect(scripts).toBeLessThanOrEqual(3);
      const records = await trail.readByTrace("trace-1");
      expect(records.map((r) => r.entry.seq)).toEqual(
        results.filter((_, i) => i % 3 === 1).map((r) => r.seq),
      );
      expect(records.map((r) => r.id)).toEqual(results.filter((_, i) => i % 3 === 1).map((r) => r.id));
      expect(await trail.verify({ pageSize: 9 })).toEqual({
        ok: true,
        checked: 50,
        head: { hash: results[49]!.hash, seq: 50 },
      });
    } finally {
      client.disconnect();
    }
  });

  it("keeps one unforked chain when 10 clients append 20 entries each at once", async () => {
    const clients: Redis[] = Array.from({ length: 10 }, () => testRedisClient());
    try {
      await Promise.all(
        clients.map((client, c) => {
          const writer = new AuditTrail({ redis: client, keyPrefix: prefix, clock });
          return Promise.all(Array.from({ length: 20 }, (_, i) => writer.append(decision(`trace-${c}`, i))));
        }),
      );
      const result = await trail.verify({ pageSize: 7 });
      expect(result).toMatchObject({ ok: true, checked: 200, head: { seq: 200 } });
      expect(await trail.readByTrace("trace-3")).toHaveLength(20);
    } finally {
      for (const client of clients) client.disconnect();
    }
  });
});

describe("verifyAudit detects tampering", () => {
  it("reports an edited entry as a hash mismatch at that entry", async () => {
    await appendMany(5);
    await rewrite((entries) => {
      const fields = entries[2]![1];
      setField(fields, "entry", field(fields, "entry").replace("write not flagged #2", "nothing to see"));
      return entries;
    });
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 2,
      brokenAt: { seq: 3, problem: "hash_mismatch" },
    });
  });

  it("reports an edited entry whose hash was recomputed at the next link", async () => {
    await appendMany(5);
    await rewrite((entries) => {
      const fields = entries[1]![1];
      const entry = JSON.parse(field(fields, "entry")) as Record<string, unknown>;
      entry.isReplay = true;
      setField(fields, "entry", JSON.stringify(entry));
      setField(fields, "hash", chainHash(field(fields, "prev"), entry));
      return entries;
    });
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 2,
      brokenAt: { seq: 3, problem: "prev_mismatch" },
    });
  });

  it("with an HMAC key, reports a re-hashed edit at the edited entry itself", async () => {
    trail = new AuditTrail({ redis, keyPrefix: prefix, clock, hmacKey: "audit-key-1" });
    await appendMany(3);
    await rewrite((entries) => {
      const fields = entries[1]![1];
      const entry = JSON.parse(field(fields, "entry")) as Record<string, unknown>;
      entry.durationMs = 1;
      setField(fields, "entry", JSON.stringify(entry));
      setField(fields, "hash", chainHash(field(fields, "prev"), entry));
      return entries;
    });
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 1,
      brokenAt: { seq: 2, problem: "hash_mismatch" },
    });
    expect((await verifyAudit({ redis, keyPrefix: prefix })).ok).toBe(false);
  });

  it("reports a removed entry at the entry after it", async () => {
    await appendMany(5);
    const entries = (await redis.xrange(auditKeys(prefix).stream, "-", "+")) as Raw[];
    await redis.xdel(auditKeys(prefix).stream, entries[1]![0]);
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 1,
      brokenAt: { id: entries[2]![0], seq: 3, problem: "prev_mismatch" },
    });
  });

  it("reports a removed last entry as a head mismatch", async () => {
    await appendMany(4);
    const entries = (await redis.xrange(auditKeys(prefix).stream, "-", "+")) as Raw[];
    await redis.xdel(auditKeys(prefix).stream, entries[3]![0]);
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 3,
      brokenAt: { problem: "head_mismatch" },
    });
  });

  it("reports an inserted entry where it was inserted", async () => {
    await appendMany(4);
    await rewrite((entries) => {
      const forged = [...entries[1]![1]];
      const entry = JSON.parse(field(forged, "entry")) as Record<string, unknown>;
      entry.reason = "forged approval";
      setField(forged, "entry", JSON.stringify(entry));
      return [entries[0]!, entries[1]!, ["x", forged], entries[2]!, entries[3]!];
    });
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 2,
      brokenAt: { problem: "prev_mismatch" },
    });
  });

  it("reports reordered entries at the first one out of place", async () => {
    await appendMany(4);
    await rewrite((entries) => [entries[0]!, entries[2]!, entries[1]!, entries[3]!]);
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 1,
      brokenAt: { seq: 3, problem: "prev_mismatch" },
    });
  });

  it("reports an entry that does not decode as malformed", async () => {
    await appendMany(2);
    await redis.xadd(auditKeys(prefix).stream, "*", "entry", "{not json", "prev", "x", "hash", "y");
    expect(await trail.verify()).toMatchObject({ ok: false, checked: 2, brokenAt: { problem: "malformed" } });
  });

  it("raises AUDIT_CORRUPT when a trace's indexed entry is gone from the stream", async () => {
    const { id } = await trail.append(decision("trace-gone"));
    await redis.xdel(auditKeys(prefix).stream, id);
    const err = await trail.readByTrace("trace-gone").catch((e: unknown) => e);
    expect(isRunnerError(err, "AUDIT_CORRUPT")).toBe(true);
  });
});

describe("an append whose reply was lost", () => {
  it("is not stored twice when the same batch is sent again after it was applied", async () => {
    // Trail b learns the head, then trail a stores event E; b sending E from the same place in the
    // chain is exactly ioredis re-sending an append that Redis applied but never answered.
    const stale = new AuditTrail({ redis, keyPrefix: prefix, clock });
    await stale.append(decision("t-lost", 0));
    const applied = await trail.append(decision("t-lost", 1));
    const resent = await stale.append(decision("t-lost", 1));
    expect(resent).toEqual(applied);
    const entries = await trail.readByTrace("t-lost");
    expect(entries.map((e) => e.entry.seq)).toEqual([1, 2]);
    expect((await trail.verify()).ok).toBe(true);
    // The writer carries on from the right head.
    const next = await stale.append(decision("t-lost", 2));
    expect(next.seq).toBe(3);
  });

  it("still appends a different event that lost the race at the same place", async () => {
    const stale = new AuditTrail({ redis, keyPrefix: prefix, clock });
    await stale.append(decision("t-race", 0));
    await trail.append(decision("t-race", 1));
    const other = await stale.append(decision("t-race", 2));
    expect(other.seq).toBe(3);
    expect((await trail.readByTrace("t-race")).map((e) => e.entry.executionId)).toEqual([
      "exec-0",
      "exec-1",
      "exec-2",
    ]);
  });
});

/** The append script of the release before the string trace index, verbatim: the trace index was a list. */
const APPEND_BEFORE_20 = `
local head = redis.call('HMGET', KEYS[2], 'hash', 'seq')
local cur = head[1] or '${GENESIS_HASH}'
local curSeq = tonumber(head[2] or '0')
local first = tonumber(ARGV[2])
if cur ~= ARGV[1] or curSeq + 1 ~= first then
  return {'conflict', cur, string.format('%d', curSeq)}
end
local n = (#ARGV - 2) / 2
local prev = ARGV[1]
local out = {'ok'}
local id
for i = 1, n do
  local hash = ARGV[1 + 2 * i]
  id = redis.call('XADD', KEYS[1], '*', 'entry', ARGV[2 + 2 * i], 'prev', prev, 'hash', hash)
  redis.call('RPUSH', KEYS[2 + i], id)
  out[i + 1] = id
  prev = hash
end
redis.call('HSET', KEYS[2], 'hash', prev, 'seq', string.format('%d', first + n - 1), 'id', id)
return out
`;

/** Appends one event as a worker of that earlier release did (against the stored head). */
async function appendAsBefore20(event: AuditEvent): Promise<string> {
  const keys = auditKeys(prefix);
  const [hash, seq] = await redis.hmget(keys.head, "hash", "seq");
  const prev = hash ?? GENESIS_HASH;
  const next = Number(seq ?? 0) + 1;
  const entryJson = canonicalJson({ ...event, v: 1, seq: next, at: clock.now() });
  const reply = (await redis.eval(
    APPEND_BEFORE_20,
    3,
    keys.stream,
    keys.head,
    keys.legacyTrace(event.traceId),
    prev,
    String(next),
    chainHashOfJson(prev, entryJson),
    entryJson,
  )) as string[];
  expect(reply[0]).toBe("ok");
  return reply[1]!;
}

describe("the trace index (a string of ids, not a list)", () => {
  it("is a short string holding the trace's stream ids", async () => {
    const a = await trail.append(decision("t-str", 0));
    const b = await trail.append(execution("t-str", 1));
    const keys = auditKeys(prefix);
    expect(await redis.type(keys.trace("t-str"))).toBe("string");
    expect(await redis.get(keys.trace("t-str"))).toBe(`${a.id} ${b.id} `);
    expect(await redis.exists(keys.legacyTrace("t-str"))).toBe(0);
  });

  it("still reads a trace the previous release indexed as a list, merged in order with new entries", async () => {
    // A run audited before the upgrade, then by an upgraded worker, then (rolling deploy) by a
    // worker of the previous release again, then by an upgraded one.
    const first = await appendAsBefore20(decision("t-old", 0));
    await trail.append(execution("t-old", 1));
    const third = await appendAsBefore20(decision("t-old", 2));
    await trail.append(execution("t-old", 3));
    const keys = auditKeys(prefix);
    expect(await redis.lrange(keys.legacyTrace("t-old"), 0, -1)).toEqual([first, third]);
    const records = await trail.readByTrace("t-old");
    expect(records.map((r) => [r.entry.executionId, r.entry.seq])).toEqual([
      ["exec-0", 1],
      ["exec-1", 2],
      ["exec-2", 3],
      ["exec-3", 4],
    ]);
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 4 });
    // A trace only the previous release indexed reads as it did.
    await appendAsBefore20(decision("t-only-old", 4));
    expect((await trail.readByTrace("t-only-old")).map((r) => r.entry.executionId)).toEqual(["exec-4"]);
  });
});

describe("an entry's copies of its run id (stored once, v2)", () => {
  /** A run's own call in a top-level run: execution and trace id are the run id. */
  const ownCall = (runId: string): AuditEvent => ({ ...decision(runId), executionId: runId, runId });

  it("stores v2 without the execution and trace ids that equal the run id, and reads them back", async () => {
    const event = ownCall("run-own");
    const { id } = await trail.append(event);
    const [row] = (await redis.xrange(auditKeys(prefix).stream, id, id)) as Raw[];
    const stored = JSON.parse(field(row![1], "entry"));
    expect(stored).not.toHaveProperty("executionId");
    expect(stored).not.toHaveProperty("traceId");
    expect(stored).toMatchObject({ v: 2, runId: "run-own" });
    const [record] = await trail.readByTrace("run-own");
    expect(record?.entry).toEqual({ ...event, v: 2, seq: 1, at: clock.now() });
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 1 });
  });

  it("stores v1, byte for byte as before, an entry with nothing to leave out", async () => {
    const event = { ...decision("trace-other"), runId: "run-other" };
    const { id, hash } = await trail.append(event);
    const [row] = (await redis.xrange(auditKeys(prefix).stream, id, id)) as Raw[];
    expect(field(row![1], "entry")).toBe(canonicalJson({ ...event, v: 1, seq: 1, at: clock.now() }));
    expect(hash).toBe(chainHash(GENESIS_HASH, { ...event, v: 1, seq: 1, at: clock.now() }));
  });

  it("verifies a chain of entries the previous release wrote (the run id repeated) and v2 ones", async () => {
    await appendAsBefore20(ownCall("run-mixed"));
    await trail.append(ownCall("run-mixed"));
    await appendAsBefore20(ownCall("run-mixed"));
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 3 });
    const records = await trail.readByTrace("run-mixed");
    expect(records.map((r) => [r.entry.v, r.entry.executionId, r.entry.traceId])).toEqual([
      [1, "run-mixed", "run-mixed"],
      [2, "run-mixed", "run-mixed"],
      [1, "run-mixed", "run-mixed"],
    ]);
  });

  it("breaks the chain when a v2 entry gets a left-out field back, even with the value it stood for", async () => {
    await trail.append(ownCall("run-edit"));
    await trail.append(ownCall("run-edit"));
    await rewrite((entries) =>
      entries.map(([id, fields], i) => {
        if (i === 0) {
          const entry = JSON.parse(field(fields, "entry"));
          setField(fields, "entry", canonicalJson({ ...entry, executionId: "run-edit" }));
        }
        return [id, fields];
      }),
    );
    expect(await trail.verify()).toMatchObject({ ok: false, brokenAt: { seq: 1, problem: "hash_mismatch" } });
  });
});

/**
 * The append script of main before a v2 entry left its prev out, verbatim: every
 * entry kept `prev`; a v2 entry was already stored without the run-id copies.
 */
const APPEND_WITH_PREV = `
local head = redis.call('HMGET', KEYS[2], 'hash', 'seq')
local cur = head[1] or '${GENESIS_HASH}'
local curSeq = tonumber(head[2] or '0')
local first = tonumber(ARGV[2])
if cur ~= ARGV[1] or curSeq + 1 ~= first then
  return {'conflict', cur, string.format('%d', curSeq)}
end
local n = (#ARGV - 2) / 2
local prev = ARGV[1]
local out = {'ok'}
local id
for i = 1, n do
  local hash = ARGV[1 + 2 * i]
  id = redis.call('XADD', KEYS[1], '*', 'entry', ARGV[2 + 2 * i], 'prev', prev, 'hash', hash)
  redis.call('APPEND', KEYS[2 + i], id .. ' ')
  out[i + 1] = id
  prev = hash
end
redis.call('HSET', KEYS[2], 'hash', prev, 'seq', string.format('%d', first + n - 1), 'id', id)
return out
`;

/** Appends one event as main did before this step: v2 when it repeats its run id, `prev` always stored. */
async function appendWithPrev(event: AuditEvent): Promise<string> {
  const keys = auditKeys(prefix);
  const [hash, seq] = await redis.hmget(keys.head, "hash", "seq");
  const prev = hash ?? GENESIS_HASH;
  const next = Number(seq ?? 0) + 1;
  const entryJson = canonicalJson(storedAuditEntry(event, next, clock.now()));
  const reply = (await redis.eval(
    APPEND_WITH_PREV,
    3,
    keys.stream,
    keys.head,
    keys.trace(event.traceId),
    prev,
    String(next),
    chainHashOfJson(prev, entryJson),
    entryJson,
  )) as string[];
  expect(reply[0]).toBe("ok");
  return reply[1]!;
}

describe("an entry's prev (a v2 entry leaves it to the stream entry before it)", () => {
  const ownCall = (runId: string, i = 0): AuditEvent => ({
    ...decision(runId, i),
    executionId: runId,
    runId,
  });
  const names = (fields: string[]) => fields.filter((_, i) => i % 2 === 0);

  it("stores a v2 entry without prev and reads it back with the hash before it as its prev", async () => {
    const a = await trail.append(ownCall("run-p", 0));
    const b = await trail.append(decision("trace-v1", 1));
    const c = await trail.append(ownCall("run-p", 2));
    const rows = (await redis.xrange(auditKeys(prefix).stream, "-", "+")) as Raw[];
    expect(rows.map(([, fields]) => names(fields))).toEqual([
      ["entry", "hash"],
      ["entry", "prev", "hash"],
      ["entry", "hash"],
    ]);
    const records = await trail.readByTrace("run-p");
    expect(records.map((r) => [r.id, r.prev, r.hash])).toEqual([
      [a.id, GENESIS_HASH, a.hash],
      [c.id, b.hash, c.hash],
    ]);
    expect(await trail.verify()).toEqual({ ok: true, checked: 3, head: { hash: c.hash, seq: 3 } });
  });

  it("verifies and reads a chain mixing entries of the previous release, of main (v2 with prev) and new ones", async () => {
    await appendAsBefore20(ownCall("run-m", 0));
    await appendWithPrev(ownCall("run-m", 1));
    await trail.append(ownCall("run-m", 2));
    await appendWithPrev(ownCall("run-m", 3));
    await trail.append(ownCall("run-m", 4));
    const rows = (await redis.xrange(auditKeys(prefix).stream, "-", "+")) as Raw[];
    expect(rows.map(([, fields]) => names(fields).includes("prev"))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 5 });
    const records = await trail.readByTrace("run-m");
    expect(records.map((r) => [r.entry.seq, r.entry.v])).toEqual([
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 2],
      [5, 2],
    ]);
    for (const [i, r] of records.entries())
      expect(r.prev).toBe(i === 0 ? GENESIS_HASH : records[i - 1]!.hash);
  });

  it("finds a removed entry before a v2 entry by its seq, and an edited v2 entry by its hash", async () => {
    for (let i = 0; i < 4; i++) await trail.append(ownCall("run-r", i));
    const { stream } = auditKeys(prefix);
    const rows = (await redis.xrange(stream, "-", "+")) as Raw[];
    await redis.xdel(stream, rows[1]![0]);
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 1,
      brokenAt: { id: rows[2]![0], seq: 3, problem: "seq_mismatch" },
    });
    await redis.del(stream);
    await rewrite(() =>
      rows.map(([id, fields], i) => {
        if (i === 2) setField(fields, "entry", field(fields, "entry").replace("#2", "#9"));
        return [id, fields];
      }),
    );
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 2,
      brokenAt: { seq: 3, problem: "hash_mismatch" },
    });
  });

  it("finds an edited entry re-hashed without the key at the v2 entry after it", async () => {
    for (let i = 0; i < 3; i++) await trail.append(ownCall("run-h", i));
    await rewrite((entries) => {
      const fields = entries[0]![1];
      const entry = JSON.parse(field(fields, "entry")) as Record<string, unknown>;
      entry.reason = "nothing to see";
      setField(fields, "entry", canonicalJson(entry));
      setField(fields, "hash", chainHash(GENESIS_HASH, entry));
      return entries;
    });
    expect(await trail.verify()).toMatchObject({
      ok: false,
      checked: 1,
      brokenAt: { seq: 2, problem: "hash_mismatch" },
    });
  });

  it("reads a v1 entry without its prev as malformed: only v2 may leave it out", async () => {
    await trail.append(decision("trace-v1", 0));
    await rewrite((entries) =>
      entries.map(([id, fields]) => [id, fields.slice(0, 2).concat(fields.slice(4))]),
    );
    const [row] = (await redis.xrange(auditKeys(prefix).stream, "-", "+")) as Raw[];
    expect(names(row![1])).toEqual(["entry", "hash"]);
    expect(await trail.verify()).toMatchObject({ ok: false, brokenAt: { problem: "malformed" } });
    expect(decodeAuditFields(row![0], row![1], GENESIS_HASH)).toEqual({
      ok: false,
      problem: "a v1 entry must keep its prev field",
    });
  });
});

describe("appendOnce: an outbox entry delivered twice is appended once", () => {
  it("appends the first delivery and writes nothing for a second one with the same id", async () => {
    const event = trail.prepare(execution("t-once", 1));
    const first = await trail.appendOnce(event, "d-1");
    expect(first?.seq).toBe(1);
    // A second trail instance: another worker, which knows nothing of the first delivery.
    const other = new AuditTrail({ redis, keyPrefix: prefix, clock });
    expect(await other.appendOnce(event, "d-1")).toBeNull();
    expect(await other.appendOnce(event, "d-2")).toMatchObject({ seq: 2 });
    expect((await trail.readByTrace("t-once")).map((r) => r.entry.seq)).toEqual([1, 2]);
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 2 });
    // The delivery ids are kept as long as an outbox entry can be left over (the journal's retention).
    const ttl = await redis.pttl(auditKeys(prefix).delivered("t-once"));
    expect(ttl).toBeGreaterThan(6 * 24 * 3600 * 1000);
  });

  it("drops a delivered entry from a group commit and appends the rest in order", async () => {
    await trail.appendOnce(trail.prepare(execution("t-mix", 0)), "seen");
    const other = new AuditTrail({ redis, keyPrefix: prefix, clock });
    const results = await Promise.all([
      other.append(decision("t-mix", 1)),
      other.appendOnce(other.prepare(execution("t-mix", 0)), "seen"),
      other.appendOnce(other.prepare(execution("t-mix", 2)), "fresh"),
      other.append(decision("t-mix", 3)),
    ]);
    expect(results.map((r) => r?.seq ?? null)).toEqual([2, null, 3, 4]);
    const reasons = (await trail.readByTrace("t-mix")).map((r) => r.entry.executionId);
    expect(reasons).toEqual(["exec-0", "exec-1", "exec-2", "exec-3"]);
    expect(await trail.verify()).toMatchObject({ ok: true, checked: 4 });
  });

  it("refuses a delivery id the marks cannot hold", async () => {
    const event = trail.prepare(execution("t-bad", 0));
    for (const id of ["", "has space", "x".repeat(129)]) {
      await expect(trail.appendOnce(event, id)).rejects.toMatchObject({ code: "AUDIT_ENTRY_INVALID" });
    }
    expect(await trail.head()).toBeNull();
  });
});
