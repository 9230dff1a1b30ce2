import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deleteKeysWithPrefix,
  testRedisClient,
  testRedisUrl,
  uniquePrefix,
} from "../../../../test/helpers/test-redis.js";
import { type AuditEvent, AuditTrail, auditKeys } from "../../../journal/index.js";
import { ManualClock } from "../../../shared/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

let redis: Redis;
let dir: string;
const prefixes: string[] = [];
const T0 = Date.UTC(2030, 0, 2, 3, 4, 5, 678);

beforeAll(async () => {
  redis = testRedisClient();
  dir = await mkdtemp(join(tmpdir(), "echo-cli-audit-"));
});
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

const decision = (traceId: string, tool: string, verdict: "allow" | "deny" | "ask", step: number) =>
  ({
    kind: "decision",
    traceId,
    executionId: traceId,
    tool,
    risk: "write",
    capabilities: ["fs.write"],
    verdict,
    step,
    reason: `${tool} decided at step ${step}`,
    ...(verdict === "allow" ? { approvalSource: "auto" } : {}),
  }) as const satisfies AuditEvent;

const execution = (traceId: string, tool: string, approver?: string) =>
  ({
    kind: "execution",
    traceId,
    executionId: traceId,
    tool,
    risk: "exec",
    capabilities: ["process.exec"],
    outcome: "success",
    durationMs: 12,
    isReplay: false,
    approvalSource: "human",
    ...(approver ? { approver } : {}),
  }) as const satisfies AuditEvent;

/** A fresh trail under its own prefix (verify covers a whole trail), with a config file naming it. */
async function freshTrail(events: AuditEvent[]) {
  const prefix = uniquePrefix("cli-audit");
  prefixes.push(prefix);
  const configPath = join(dir, `${prefix.replace(/:/g, "_")}.yaml`);
  await writeFile(configPath, `redis:\n  key_prefix: "${prefix}"\n`);
  const clock = new ManualClock(T0);
  const trail = new AuditTrail({ redis, keyPrefix: prefix, clock });
  const ids: string[] = [];
  for (const event of events) {
    ids.push((await trail.append(event)).id);
    clock.advance(1000);
  }
  const cli = async (args: string[]) => {
    const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl() }, dir);
    const code = await runCli([...args, "--config", configPath], out.io);
    return { code, stdout: out.stdout(), stderr: out.stderr() };
  };
  return { prefix, ids, cli, stream: auditKeys(prefix).stream };
}

const SAMPLE: AuditEvent[] = [
  decision("trace-a", "write_file", "allow", 5),
  execution("trace-a", "write_file"),
  decision("trace-b", "exec", "ask", 11),
  execution("trace-b", "exec", "alice"),
  decision("trace-a", "web_fetch", "deny", 1),
];

/** Rewrites the stream entry `id` through `edit` with raw Redis commands, keeping every stream id. */
async function rewriteEntry(stream: string, id: string, edit: (fields: string[]) => string[]) {
  const rows = (await redis.xrange(stream, "-", "+")) as [string, string[]][];
  const multi = redis.multi().del(stream);
  for (const [rowId, fields] of rows) multi.xadd(stream, rowId, ...(rowId === id ? edit(fields) : fields));
  await multi.exec();
}

describe("echo-runner audit", () => {
  it("lists the trail oldest first, one line each with time, kind, tool, result, step, reason and approver", async () => {
    const { cli } = await freshTrail(SAMPLE);
    const res = await cli(["audit"]);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^2030-01-02T03:04:05\.678Z {2}#1 {2}decision +write_file +allow +step 5 {2}"write_file decided at step 5" {2}approval auto {2}trace trace-a$/,
    );
    expect(lines[3]).toMatch(
      /^2030-01-02T03:04:08\.678Z {2}#4 {2}execution +exec +success +12ms {2}approver alice {2}trace trace-b$/,
    );
    expect(lines[4]).toContain("deny");
  });

  it("keeps the newest N entries with --limit and one trace's entries with --trace", async () => {
    const { cli } = await freshTrail(SAMPLE);
    const limited = await cli(["audit", "--limit", "2"]);
    expect(
      limited.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("  ")[1]),
    ).toEqual(["#4", "#5"]);
    const traced = await cli(["audit", "--trace", "trace-a"]);
    expect(traced.code).toBe(0);
    expect(
      traced.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("  ")[1]),
    ).toEqual(["#1", "#2", "#5"]);
    const both = await cli(["audit", "--trace", "trace-a", "--limit", "1"]);
    expect(both.stdout).toContain("web_fetch");
    expect(both.stdout.trim().split("\n")).toHaveLength(1);
    const none = await cli(["audit", "--trace", "trace-zzz"]);
    expect(none.stdout).toBe("no audit entries for trace trace-zzz\n");
  });

  it("prints the records as JSON with --json", async () => {
    const { cli, ids } = await freshTrail(SAMPLE);
    const res = await cli(["audit", "--trace", "trace-b", "--json"]);
    expect(res.code).toBe(0);
    const records = JSON.parse(res.stdout);
    expect(records.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[3]]);
    expect(records[1].entry).toMatchObject({ kind: "execution", approver: "alice", seq: 4, at: T0 + 3000 });
    expect(records[1].prev).toBe(records[0].hash);
  });

  it("lists entries stored without prev (v2) with the hash of the entry before them as their prev", async () => {
    const own = (e: AuditEvent): AuditEvent => ({ ...e, runId: e.traceId });
    const { cli, stream } = await freshTrail(SAMPLE.map(own));
    const rows = (await redis.xrange(stream, "-", "+")) as [string, string[]][];
    expect(rows.every(([, fields]) => !fields.includes("prev"))).toBe(true);
    const recent = JSON.parse((await cli(["audit", "--limit", "2", "--json"])).stdout);
    const all = JSON.parse((await cli(["audit", "--json"])).stdout);
    expect(all.map((r: { prev: string }) => r.prev)).toEqual([
      "0".repeat(64),
      ...all.slice(0, -1).map((r: { hash: string }) => r.hash),
    ]);
    expect(recent).toEqual(all.slice(-2));
    const traced = JSON.parse((await cli(["audit", "--trace", "trace-b", "--json"])).stdout);
    expect(traced).toEqual([all[2], all[3]]);
    expect((await cli(["audit", "verify"])).code).toBe(0);
  });

  it("shows an entry that does not decode as malformed and exits 1", async () => {
    const { cli, ids, stream } = await freshTrail(SAMPLE);
    await rewriteEntry(stream, ids[1]!, (fields) =>
      fields.map((f, i) => (fields[i - 1] === "entry" ? "{not json" : f)),
    );
    const res = await cli(["audit"]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`${ids[1]}  MALFORMED  its entry is not valid JSON`);
    expect(res.stdout.trim().split("\n")).toHaveLength(5);
    expect(res.stderr).toContain("audit verify");
  });

  it.each([
    [["audit", "--limit", "0"], "--limit must be a whole number from 1 to 10000"],
    [["audit", "--limit", "ten"], "--limit must be a whole number"],
    [["audit", "--trace", "a{b}"], "--trace must be a non-empty trace id"],
    [["audit", "list"], 'unexpected argument "list"'],
    [["audit", "verify", "now"], 'unexpected argument "now"'],
  ])("treats %j as a usage error", async (args, message) => {
    const { cli } = await freshTrail([]);
    const res = await cli(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
  });
});

describe("echo-runner audit verify", () => {
  it("exits 0 when every link of the chain holds", async () => {
    const { cli } = await freshTrail(SAMPLE);
    const res = await cli(["audit", "verify"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^audit trail verified: 5 entries, head seq 5 hash [0-9a-f]{64}\n$/);
    const json = await cli(["audit", "verify", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, checked: 5, head: { seq: 5 } });
  });

  it("verifies an empty trail", async () => {
    const { cli } = await freshTrail([]);
    const res = await cli(["audit", "verify"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("audit trail verified: it is empty\n");
    expect((await cli(["audit"])).stdout).toBe("the audit trail is empty\n");
  });

  it.each([
    {
      tampering: "an entry's reason edited in place",
      target: 2,
      named: 2,
      problem: "hash_mismatch",
      edit: (fields: string[]) =>
        fields.map((f, i) =>
          fields[i - 1] === "entry" ? f.replace("exec decided at step 11", "nothing to see") : f,
        ),
    },
    {
      tampering: "an entry's verdict flipped from deny to allow",
      target: 4,
      named: 4,
      problem: "hash_mismatch",
      edit: (fields: string[]) =>
        fields.map((f, i) => (fields[i - 1] === "entry" ? f.replace('"deny"', '"allow"') : f)),
    },
    {
      tampering: "an entry removed",
      target: 1,
      named: 2,
      problem: "prev_mismatch",
      edit: null,
    },
  ])("exits 1 naming the first broken link after $tampering", async ({ target, named, problem, edit }) => {
    const { cli, ids, stream } = await freshTrail(SAMPLE);
    if (edit) await rewriteEntry(stream, ids[target]!, edit);
    else await redis.xdel(stream, ids[target]!);
    const res = await cli(["audit", "verify"]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`audit trail BROKEN at entry ${ids[named]} (seq ${named + 1}): ${problem}`);
    expect(res.stdout).toContain(`${target} entries verified before it`);
    const json = await cli(["audit", "verify", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, brokenAt: { id: ids[named], problem } });
  });

  it("names the tampered head when entries were cut from the end", async () => {
    const { cli, ids, stream } = await freshTrail(SAMPLE);
    await redis.xdel(stream, ids[4]!);
    const res = await cli(["audit", "verify"]);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`BROKEN at entry ${ids[3]} (seq 4): head_mismatch`);
  });

  it("fails with REDIS_UNAVAILABLE when Redis cannot be reached", async () => {
    const out = bufferIo("", { HOME: dir, REDIS_URL: "redis://127.0.0.1:1" }, dir);
    const code = await runCli(["audit", "verify"], out.io);
    expect(code).toBe(1);
    expect(out.stderr()).toContain("REDIS_UNAVAILABLE");
  });
});
