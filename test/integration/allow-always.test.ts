import { appendFile, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ParkSignal, runAgent, storeApprovals } from "../../src/agent/index.js";
import {
  ApprovalNotifications,
  ApprovalStore,
  LogNotifier,
  RedisAllowAlwaysStore,
} from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

describe("approve always", () => {
  it("creates an allow-always record for those exact arguments: the next run of the same call needs nobody, another command still asks", async () => {
    const keyPrefix = uniquePrefix("always");
    const dir = await mkdtemp(join(tmpdir(), "echo-always-"));
    const log = join(dir, "ran.txt");
    const exec = defineTool({
      name: "exec",
      description: "records the command (test tool)",
      parameters: Type.Object({ command: Type.String() }),
      async execute(args) {
        await appendFile(log, `${args.command}\n`);
        return toolSuccess("ok");
      },
    });
    const script = (command: string) =>
      stringify([{ tool_calls: [{ name: "exec", arguments: { command } }] }, { content: "done" }]);
    const logger = createLogger({ level: "silent", format: "json" });
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "olga", email: null }] },
    });
    const notifications = new ApprovalNotifications({
      store,
      notifiers: [new LogNotifier(logger)],
      publicUrl: "http://x",
      logger,
    });
    const allowAlways = new RedisAllowAlwaysStore(redis, keyPrefix);
    const depsFor = async (command: string) => {
      const { deps } = await testRunDeps({
        redis,
        keyPrefix,
        tools: [exec],
        script: script(command),
        configOverrides: { permissions: { elevated: { enabled: false } } },
        gatePorts: { allowAlways },
      });
      return { ...deps, approvals: storeApprovals({ store, notifications, logger, allowAlways }) };
    };

    // Run 1 parks; an operator approves always; the run resumes and executes.
    const first = testPayload({}, { workspace: dir });
    const deps1 = await depsFor("make build");
    const parked = await runAgent({ payload: first, jobId: first.runId, owner: "w1", deps: deps1 }).catch(
      (e) => e,
    );
    expect(parked).toBeInstanceOf(ParkSignal);
    const [pending] = await store.list({ status: "pending" });
    expect(pending).toBeDefined();
    const decided = await store.decide({
      id: pending!.id,
      actor: { kind: "operator", id: "olga", via: "cli" },
      decision: "approve_always",
    });
    expect(decided.outcome).toBe("decided");
    expect(decided.record?.decisions[0]).toMatchObject({ kind: "always" });
    expect(await runAgent({ payload: first, jobId: first.runId, owner: "w2", deps: deps1 })).toMatchObject({
      status: "completed",
    });
    expect(await allowAlways.find("exec", [{ scope: "agent", scopeId: first.agentId }])).toHaveLength(1);

    // Run 2, same agent and exact arguments: allowed at step 9 without parking.
    const second = testPayload({}, { workspace: dir });
    expect(await runAgent({ payload: second, jobId: second.runId, owner: "w3", deps: deps1 })).toMatchObject({
      status: "completed",
    });
    expect((await readFile(log, "utf8")).trim().split("\n")).toEqual(["make build", "make build"]);

    // Run 3, another command: the record does not cover it, it parks again.
    const third = testPayload({}, { workspace: dir });
    const deps3 = await depsFor("make deploy");
    expect(
      await runAgent({ payload: third, jobId: third.runId, owner: "w4", deps: deps3 }).catch((e) => e),
    ).toBeInstanceOf(ParkSignal);
  });

  it("a grant for agent ops:test does not let agent ops run the same command (exact agent, not a prefix)", async () => {
    const keyPrefix = uniquePrefix("always-exact");
    const dir = await mkdtemp(join(tmpdir(), "echo-always-"));
    const log = join(dir, "ran.txt");
    const exec = defineTool({
      name: "exec",
      description: "records the command (test tool)",
      parameters: Type.Object({ command: Type.String() }),
      async execute(args) {
        await appendFile(log, `${args.command}\n`);
        return toolSuccess("ok");
      },
    });
    const logger = createLogger({ level: "silent", format: "json" });
    const store = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "olga", email: null }] },
    });
    const notifications = new ApprovalNotifications({
      store,
      notifiers: [new LogNotifier(logger)],
      publicUrl: "http://x",
      logger,
    });
    const allowAlways = new RedisAllowAlwaysStore(redis, keyPrefix);
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [exec],
      script: stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
        { content: "done" },
      ]),
      configOverrides: { permissions: { elevated: { enabled: false } } },
      gatePorts: { allowAlways },
    });
    const runDeps = { ...deps, approvals: storeApprovals({ store, notifications, logger, allowAlways }) };
    // Agent ops:test's call is approved always (the red team's step 1): the record is written.
    const opsTest = testPayload({ agentId: "ops:test" }, { workspace: dir });
    expect(
      await runAgent({ payload: opsTest, jobId: opsTest.runId, owner: "w1", deps: runDeps }).catch((e) => e),
    ).toBeInstanceOf(ParkSignal);
    const [pending] = await store.list({ status: "pending" });
    await store.decide({
      id: pending!.id,
      actor: { kind: "operator", id: "olga", via: "cli" },
      decision: "approve_always",
    });
    expect(
      await runAgent({ payload: opsTest, jobId: opsTest.runId, owner: "w2", deps: runDeps }),
    ).toMatchObject({ status: "completed" });
    expect(await allowAlways.find("exec", [{ scope: "agent", scopeId: "ops:test" }])).toHaveLength(1);
    // Agent ops, the same command: nobody approved it for ops, so it asks.
    const ops = testPayload({ agentId: "ops" }, { workspace: dir });
    expect(
      await runAgent({ payload: ops, jobId: ops.runId, owner: "w3", deps: runDeps }).catch((e) => e),
    ).toBeInstanceOf(ParkSignal);
    expect((await readFile(log, "utf8")).trim().split("\n")).toEqual(["make deploy"]);
  });
});
