import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ApprovalStore } from "../../src/approvals/index.js";
import { checkFailingTargets } from "../../src/cli/commands/doctor/index.js";
import { loadConfig } from "../../src/config/index.js";
import { dashboardPage } from "../../src/http/admin/index.js";
import { approvalPolicyFromConfig } from "../../src/runtime/index.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/**
 * Targets that keep failing are shown, in `doctor` and on /admin, so an approver
 * whose webhook is broken is not silently left without links. Real Redis, the real store's
 * failure records (the same script the sender uses), doctor's check and the dashboard's page.
 */
describe("notification targets that keep failing", () => {
  it("are listed by the store, warned about by doctor and shown on the dashboard", async () => {
    const keyPrefix = uniquePrefix("failing");
    prefixes.push(keyPrefix);
    const dir = await mkdtemp(join(tmpdir(), "echo-failing-"));
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        redis: { key_prefix: keyPrefix },
        approvers: [
          { id: "ann", email: "ann@example.test" },
          { id: "olga", email: "olga@example.test" },
        ],
        permissions: { approval: { forbid_self_approval: true } },
      }),
    );
    const { config } = await loadConfig({
      configPath: join(dir, "echo.yaml"),
      env: {},
      userConfigPath: null,
    });
    const store = new ApprovalStore({ redis, keyPrefix, policy: approvalPolicyFromConfig(config) });
    const register = (n: number) =>
      store.register({
        runId: `run-${n}`,
        jobId: `run-${n}`,
        traceId: `trace-${n}`,
        idempotencyKey: `key-${n}`,
        tool: "exec",
        args: { command: "make deploy" },
        risk: "exec",
        flags: [],
        reason: "needs a person",
        agent: "nightly",
        channel: "cron",
        owner: "ann",
        scheduleId: null,
        parentRunId: null,
      });
    const a = (await register(1)).record;
    const b = (await register(2)).record;
    expect(await checkFailingTargets(config, testRedisUrl(), 2000)).toMatchObject({ status: "ok" });

    for (let i = 0; i < 4; i++) await store.markTargetFailed(a.id, "slack:ann", Date.now() + 60_000);
    for (let i = 0; i < 3; i++) await store.markTargetFailed(b.id, "slack:ann", Date.now() + 30_000);
    // Two failures are a hiccup, not a target that keeps failing.
    for (let i = 0; i < 2; i++) await store.markTargetFailed(b.id, "email:ann", Date.now() + 30_000);

    const failing = await store.failingTargets();
    expect(failing).toEqual([{ target: "slack:ann", failures: 4, requests: 2, nextAt: expect.any(Number) }]);

    const check = await checkFailingTargets(config, testRedisUrl(), 2000);
    expect(check).toMatchObject({ name: "notifications.targets", status: "warn" });
    expect(check?.reason).toContain("slack:ann (4 failures in a row, 2 pending request(s))");
    expect(await checkFailingTargets(config, "redis://127.0.0.1:1", 500)).toBeUndefined();

    const page = dashboardPage("", {
      operator: "olga",
      csrf: "c",
      notice: null,
      queues: [],
      pending: [],
      runs: [],
      schedules: [],
      failingTargets: failing,
      now: Date.now(),
    });
    expect(page).toContain('id="failing-targets"');
    expect(page).toContain("<code>slack:ann</code>");
    expect(
      dashboardPage("", {
        operator: "o",
        csrf: "c",
        notice: null,
        queues: [],
        pending: [],
        runs: [],
        schedules: [],
        now: 0,
      }),
    ).not.toContain("failing-targets");
  });

  it("offers the run's owner no buttons it would refuse (forbid_self_approval)", async () => {
    const keyPrefix = uniquePrefix("barred-admin");
    prefixes.push(keyPrefix);
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: {
        waitTimeoutMs: 3_600_000,
        forbidSelfApproval: true,
        approvers: [
          { id: "ann", email: "ann@example.test" },
          { id: "olga", email: "olga@example.test" },
        ],
      },
    });
    const { record } = await store.register({
      runId: "run-barred",
      jobId: "run-barred",
      traceId: "trace-barred",
      idempotencyKey: "key-barred",
      tool: "exec",
      args: { command: "make deploy" },
      risk: "exec",
      flags: [],
      reason: "needs a person",
      agent: "nightly",
      channel: "cron",
      owner: "ann",
      scheduleId: null,
      parentRunId: null,
    });
    const pageFor = (operator: string) =>
      dashboardPage("", {
        operator,
        csrf: "c",
        notice: null,
        queues: [],
        pending: [record],
        runs: [],
        schedules: [],
        now: Date.now(),
      });
    expect(pageFor("ann")).not.toContain(`id="approve-${record.id}"`);
    expect(pageFor("ann")).toContain(`id="barred-${record.id}"`);
    expect(pageFor("olga")).toContain(`id="approve-${record.id}"`);
  });
});
