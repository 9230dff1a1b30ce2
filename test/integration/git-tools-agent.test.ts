import { rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { redisSpillStore, runAgent } from "../../src/agent/index.js";
import { createPathFence } from "../../src/guard/index.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { git, twoCommitRepo } from "../../src/tools/git/git-test-repo.fixture.js";
import {
  fenceFactory,
  tempWorkspace,
  testSupervisor,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { createBuiltinTools } from "../../src/tools/registry/builtin-tools.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
const supervisor = testSupervisor();
afterAll(async () => {
  await supervisor.close();
  redis.disconnect();
});

describe("a 'summarise the last change' agent under the default profile", () => {
  it("reads the repository with the git tools in an unattended run, each call allowed without a person, and has no exec", async () => {
    const ws = await tempWorkspace("git-agent");
    await twoCommitRepo(ws);
    // The workspace's config is hostile input; the run still works.
    await rm("/tmp/echo-git-agent-pwned", { force: true });
    git(ws, "config", "core.fsmonitor", "touch /tmp/echo-git-agent-pwned");
    const keyPrefix = uniquePrefix("git-agent");
    const tools = createBuiltinTools({
      pathFence: fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
      redis,
      keyPrefix,
      runStateRetentionMs: 60_000,
      spill: redisSpillStore(redis, keyPrefix, 60_000),
      processes: supervisor,
      execHost: "local",
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      clock: new ManualClock(1_000),
    });
    const script = stringify([
      { tool_calls: [{ name: "git_log", arguments: { max_count: 1 } }] },
      { tool_calls: [{ name: "git_show", arguments: { revision: "HEAD" } }] },
      { tool_calls: [{ name: "git_status", arguments: {} }] },
      { tool_calls: [{ name: "exec", arguments: { command: "git log -1" } }] },
      { content: "The last change fixed the greeting in hello.txt." },
    ]);
    // config/default.yaml as shipped (security daemon, network restricted, session workspace,
    // approvals on): the harness's own security and execution settings are put back to the defaults.
    const { deps } = await testRunDeps({
      redis,
      keyPrefix,
      tools,
      script,
      configOverrides: { security: {}, execution: {} },
    });
    // The harness's approvals throw on any registration: an ask would fail the run.
    const payload = testPayload({ unattended: true, channel: "cron" }, { workspace: ws });
    try {
      const outcome = await runAgent({ payload, jobId: payload.runId, owner: "w1", deps });
      expect(outcome).toMatchObject({
        status: "completed",
        finalAnswer: "The last change fixed the greeting in hello.txt.",
      });
      const journal = new Journal({ redis, keyPrefix });
      type Record = { completedAt: number; result: { success: boolean; output: string; error?: string } };
      const results = [...(await journal.readRun(payload.runId)).records.entries()]
        .filter(([key]) => !key.startsWith("model:"))
        .map(([, record]) => record as Record)
        .sort((a, b) => a.completedAt - b.completedAt)
        .map((record) => record.result);
      expect(results.map((r) => r.success)).toEqual([true, true, true, false]);
      expect(results[0]?.output).toContain("fix the greeting");
      expect(results[3]?.error).toContain('Tool "exec" removed by layer security_profile=daemon');
      expect(results[1]?.output).toContain("fix the greeting");
      expect(results[1]?.output).toContain("+hello, world");

      const trail = new AuditTrail({ redis, keyPrefix });
      const decisions = (await trail.readByTrace(payload.traceId))
        .map(
          (e) =>
            e.entry as {
              kind: string;
              tool?: string;
              verdict?: string;
              step?: number;
              approvalSource?: string;
            },
        )
        .filter((e) => e.kind === "decision");
      const gitDecisions = decisions.filter((e) => e.tool?.startsWith("git_"));
      expect(gitDecisions.map((e) => e.tool)).toEqual(["git_log", "git_show", "git_status"]);
      for (const d of gitDecisions)
        expect(d).toMatchObject({ verdict: "allow", step: 4, approvalSource: "auto" });
      // exec is not in the run's tool set under security profile daemon: denied, never run.
      const execDecisions = decisions.filter((e) => e.tool === "exec");
      expect(execDecisions.map((e) => e.verdict)).toEqual(["deny"]);
      expect(await stat("/tmp/echo-git-agent-pwned").catch(() => undefined)).toBeUndefined();
    } finally {
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  }, 60_000);
});
