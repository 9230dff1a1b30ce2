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
import { type ApprovalRecord, ApprovalStore } from "../../../approvals/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

/**
 * One damaged request in Redis (its `req` field does not parse) among healthy pending ones:
 * `approvals list` still lists the healthy ones, names the damaged one on stderr (and in `damaged`
 * with --json) and exits 1; the damaged one stays undecidable.
 */
let redis: Redis;
let prefix: string;
let dir: string;
let configPath: string;
let healthy: ApprovalRecord[];
let damaged: ApprovalRecord;

beforeAll(async () => {
  redis = testRedisClient();
  prefix = uniquePrefix("cli-damaged");
  dir = await mkdtemp(join(tmpdir(), "echo-cli-damaged-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    `redis:\n  key_prefix: "${prefix}"\napprovers:\n  - { id: alice, email: alice@example.test }\n  - { id: dave }\n`,
  );
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      approvers: [
        { id: "alice", email: null },
        { id: "dave", email: null },
      ],
    },
  });
  const register = async (n: number) =>
    (
      await store.register({
        runId: `run-${n}`,
        jobId: `run-${n}`,
        traceId: `trace-${n}`,
        idempotencyKey: `k-${n}`,
        tool: "exec",
        args: { command: `make target-${n}` },
        risk: "exec",
        reason: "needs a person",
        agent: "nightly",
        channel: "cron",
        owner: "carol",
      })
    ).record;
  healthy = [await register(1), await register(3)];
  damaged = await register(2);
  await redis.hset(store.keys.request(damaged.id), "req", "{not json");
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function cli(args: string[]) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl(), USER: "dave" }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe("echo-runner approvals list with a damaged request", () => {
  it("lists the healthy requests, names the damaged one on stderr and exits 1", async () => {
    const { code, stdout, stderr } = await cli(["approvals", "list"]);
    expect(code).toBe(1);
    for (const record of healthy) expect(stdout).toContain(record.id);
    expect(stdout).not.toContain(damaged.id);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`damaged ${damaged.id}: APPROVAL_CORRUPT:`);
    expect(lines[0]).toContain("its req field is not valid JSON");
  });

  it("puts the damaged one in `damaged` with --json, beside the healthy `approvals`", async () => {
    const { code, stdout } = await cli(["approvals", "list", "--json"]);
    expect(code).toBe(1);
    const listed = JSON.parse(stdout) as {
      approvals: { id: string }[];
      damaged: { id: string; code: string; message: string }[];
    };
    expect(listed.approvals.map((r) => r.id).sort()).toEqual(healthy.map((r) => r.id).sort());
    expect(listed.damaged).toEqual([
      { id: damaged.id, code: "APPROVAL_CORRUPT", message: expect.stringContaining("neither approved") },
    ]);
  });

  it("still refuses to decide the damaged one, and decides a healthy one", async () => {
    const refused = await cli(["approvals", "approve", damaged.id]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("APPROVAL_CORRUPT");
    const approved = await cli(["approvals", "approve", healthy[0]!.id]);
    expect(approved.code).toBe(0);
    const after = await cli(["approvals", "list", "--json"]);
    expect((JSON.parse(after.stdout) as { approvals: { id: string }[] }).approvals.map((r) => r.id)).toEqual([
      healthy[1]!.id,
    ]);
  });
});
