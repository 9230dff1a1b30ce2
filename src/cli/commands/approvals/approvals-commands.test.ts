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
import { ApprovalStore } from "../../../approvals/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

let redis: Redis;
let prefix: string;
let dir: string;
let configPath: string;
let store: ApprovalStore;
let n = 0;

beforeAll(async () => {
  redis = testRedisClient();
  prefix = uniquePrefix("cli");
  dir = await mkdtemp(join(tmpdir(), "echo-cli-approvals-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    `redis:\n  key_prefix: "${prefix}"\napprovers:\n  - { id: alice, email: alice@example.test }\n  - { id: dave }\n  - { id: carol }\npermissions:\n  approval:\n    forbid_self_approval: true\n`,
  );
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      forbidSelfApproval: true,
      approvers: [
        { id: "alice", email: null },
        { id: "dave", email: null },
        { id: "carol", email: null },
      ],
    },
  });
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function register(risk: "exec" | "write" = "exec") {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `job-${n}`,
    traceId: "t",
    idempotencyKey: `k-${n}`,
    tool: risk === "exec" ? "exec" : "write_file",
    args: { command: `make target-${n}` },
    risk,
    reason: "needs a person",
    agent: "nightly",
    channel: "cron",
    owner: "carol",
  });
  return record;
}

async function cli(args: string[], env: NodeJS.ProcessEnv = { USER: "dave" }) {
  const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl(), ...env }, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe("echo-runner approvals", () => {
  it("lists pending requests and shows one with its exact call and hash", async () => {
    const record = await register();
    const list = await cli(["approvals", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(record.id);
    const json = await cli(["approvals", "list", "--json"]);
    expect(JSON.parse(json.stdout).approvals.map((r: { id: string }) => r.id)).toContain(record.id);
    expect(JSON.parse(json.stdout).damaged).toEqual([]);
    const show = await cli(["approvals", "show", record.id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(record.argsHash);
    expect(show.stdout).toContain(`"command": "make target-${n}"`);
  });

  it("shows invisible and bidi characters of the call escaped, with a warning", async () => {
    n += 1;
    const { record } = await store.register({
      runId: `run-${n}`,
      jobId: `job-${n}`,
      traceId: "t",
      idempotencyKey: `k-${n}`,
      tool: "write_file",
      args: { path: "invoice\u202efdp.exe", content: "a\u200bb" },
      risk: "write",
      reason: "flagged",
      agent: "nightly",
      channel: "cron",
      owner: "carol",
    });
    const show = await cli(["approvals", "show", record.id]);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(/[\u202e\u200b]/);
    expect(show.stdout).toContain("invoice\\u202efdp.exe");
    expect(show.stdout).toContain("a\\u200bb");
    expect(show.stdout).toMatch(/Warning: +2 invisible, direction-changing or control character/);
    const list = await cli(["approvals", "list"]);
    expect(list.stdout).not.toMatch(/[\u202e\u200b]/);
    // --json stays JSON of the same values, with the characters escaped.
    const json = await cli(["approvals", "show", record.id, "--json"]);
    expect(json.stdout).not.toMatch(/[\u202e\u200b]/);
    expect(JSON.parse(json.stdout).argsCanonical).toBe(record.argsCanonical);
  });

  it("approves as $USER, and a second decision is refused naming the first", async () => {
    const record = await register();
    const approve = await cli(["approvals", "approve", record.id, "--comment", "ok"]);
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain("as dave; status: approved");
    expect((await store.get(record.id))?.decisions[0]).toMatchObject({
      by: "dave",
      via: "cli",
      kind: "once",
      comment: "ok",
    });
    const deny = await cli(["approvals", "deny", record.id]);
    expect(deny.code).toBe(1);
    expect(deny.stderr).toContain("not_pending");
    expect(deny.stderr).toContain("approve by dave");
  });

  it("records the config's operator over $USER and approves always with --always --json", async () => {
    await writeFile(
      join(dir, "op.yaml"),
      `redis:\n  key_prefix: "${prefix}"\noperator: ops-team\napprovers:\n  - { id: ops-team }\n`,
    );
    const record = await register();
    const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl(), USER: "dave" }, dir);
    const code = await runCli(
      ["approvals", "approve", record.id, "--always", "--json", "--config", join(dir, "op.yaml")],
      out.io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.stdout())).toMatchObject({
      outcome: "decided",
      final: true,
      approval: { status: "approved" },
    });
    expect((await store.get(record.id))?.decisions[0]).toMatchObject({ by: "ops-team", kind: "always" });
  });

  it.each([
    ["the run's owner when self-approval is forbidden", "exec", [], { USER: "carol" }, "self_approval"],
    ["the run's owner spelled differently", "exec", [], { USER: "CAROL " }, "self_approval"],
    ["approve always on a write call", "write", ["--always"], { USER: "dave" }, "always_not_allowed"],
  ] as const)("refuses %s", async (_name, risk, flags, env, outcome) => {
    const record = await register(risk);
    const res = await cli(["approvals", "approve", record.id, ...flags], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(outcome);
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it("records the configured id when $USER spells it differently, and counts that person once", async () => {
    const record = await register();
    const approve = await cli(["approvals", "approve", record.id], { USER: "Dave" });
    expect(approve.code).toBe(0);
    expect((await store.get(record.id))?.decisions.map((d) => d.by)).toEqual(["dave"]);
  });

  it.each([["nobody-1"], ["dave."], ["davey"]])(
    "refuses the made-up operator %j as a usage error naming the approvers, deciding nothing",
    async (user) => {
      const record = await register();
      const res = await cli(["approvals", "approve", record.id], { USER: user });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain("not one of the approvers: alice, dave, carol");
      expect((await store.get(record.id))?.decisions).toEqual([]);
    },
  );

  it("fails without an operator identity rather than recording an empty name", async () => {
    const record = await register();
    const res = await cli(["approvals", "approve", record.id], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("operator");
    expect((await store.get(record.id))?.status).toBe("pending");
  });

  it.each([
    [["approvals", "show"], "exactly one request id"],
    [["approvals", "list", "--status", "maybe"], "--status must be one of"],
  ])("treats %j as a usage error", async (args, message) => {
    const res = await cli([...args]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(message);
  });

  it("reports an unknown request as APPROVAL_NOT_FOUND", async () => {
    const res = await cli(["approvals", "show", "0".repeat(32)]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("APPROVAL_NOT_FOUND");
  });
});
