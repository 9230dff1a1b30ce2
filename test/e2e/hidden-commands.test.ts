/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell scripts, not templates */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createPathFence } from "../../src/guard/index.js";
import { AuditTrail, Journal } from "../../src/journal/index.js";
import { createLogger } from "../../src/logging/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { Scheduler, ScheduleService, ScheduleStore, scheduledRunId } from "../../src/scheduler/index.js";
import { ManualClock } from "../../src/shared/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { createExecTool } from "../../src/tools/process/exec.js";
import { createExecuteCodeTool } from "../../src/tools/process/execute-code.js";
import {
  fenceFactory,
  processToolOptions,
  tempWorkspace,
  testSupervisor,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { agentQueue, testConfig } from "../helpers/agent-harness.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
const supervisor = testSupervisor();
afterAll(async () => {
  redis.disconnect();
  await supervisor.close();
});

const MINUTE = 60_000;

/**
 * #15 "Done when", end to end: a cron-authorised scheduled run under the default config plus
 * `security.profile: personal_cli` and the owner in `permissions.elevated.allow_from.cron` (so exec
 * reaches step 4) is given each construct of findings 1 (what dash read differently: `[[`, `((`,
 * `$'…'`) and 2 (what bash evaluates at run time: arithmetic, `[[ -eq ]]`, `-v`, `${x@P}`), each
 * beside a safe bin, through the real exec and execute_code tools and the real worker. Nothing
 * hidden may run (marker files outside the journal, in a folder of the workspace so the workspace fence does not stop the calls before the guard), and the audit trail must
 * show the real verdict. One plain safe-bin call shows the path really runs commands.
 */
describe("hidden commands beside a safe bin, end to end", () => {
  it("runs none of them in a cron-authorised run, and the audit shows why", async () => {
    const keyPrefix = uniquePrefix("hidden-cmds");
    const dir = await mkdtemp(join(tmpdir(), "echo-hidden-"));
    const workspace = await tempWorkspace();
    // Inside the workspace, so the workspace fence does not stop the calls first: the guard must.
    const markers = join(workspace, "markers");
    await mkdir(markers);
    // A file an earlier write could have planted: its line is evaluated as an expression.
    await writeFile(join(workspace, "n.txt"), `y[$(touch ${markers}/read-arith)]\n`);
    const m = (name: string) => `${markers}/${name}`;
    const calls: Array<{ name: string; arguments: Record<string, unknown> }> = [
      // Finding 1: constructs /bin/sh (dash) read differently, beside a safe bin.
      { name: "exec", arguments: { command: `head -n 1; [[ 1 || touch ${m("brackets")} ]]`, stdin: "x" } },
      { name: "exec", arguments: { command: `wc -l; [[ -n x ]] || touch ${m("brackets2")} ]]`, stdin: "x" } },
      { name: "exec", arguments: { command: `head -n 1; ((touch ${m("arith-cmd")}))`, stdin: "x" } },
      {
        name: "exec",
        arguments: { command: `head -n 1 $'\\x41' ; sh -c '[[ 1 || touch ${m("nested-sh")} ]]'` },
      },
      { name: "exec", arguments: { command: "sh", stdin: `[[ 1 || touch ${m("stdin-sh")} ]]` } },
      // Finding 2: strings bash evaluates at run time.
      {
        name: "execute_code",
        arguments: { language: "bash", code: `x='y[$(touch ${m("arith")})]'; echo $((x)) | head -n 1` },
      },
      {
        name: "execute_code",
        arguments: {
          language: "bash",
          code: `x='y[$(touch ${m("test-eq")})]'; [[ $x -eq 1 ]]; wc -l </dev/null`,
        },
      },
      {
        name: "execute_code",
        arguments: { language: "bash", code: `[[ -v 'a[$(touch ${m("test-v")})]' ]]; head -n 1 </dev/null` },
      },
      {
        name: "execute_code",
        arguments: { language: "bash", code: `p='$(touch ${m("prompt")})'; echo "\${p@P}" | wc -l` },
      },
      {
        name: "execute_code",
        arguments: { language: "bash", code: "read n < n.txt; echo $((n)) | head -n 1" },
      },
      { name: "exec", arguments: { command: "read n < n.txt; head -n $((n))", stdin: "x" } },
      // The control: a safe bin alone runs (exec really reaches step 4 and executes).
      { name: "exec", arguments: { command: "head -n 1", stdin: "control-ran\n" } },
    ];
    await writeFile(
      join(dir, "script.yaml"),
      stringify([...calls.map((call) => ({ tool_calls: [call] })), { content: "done" }]),
    );
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      security: { profile: "personal_cli" },
      permissions: { elevated: { allow_from: { cron: ["ann"] } } },
      // The exec tools below run on the local host (uncontained): the guard must stop what hides.
      tools: { exec: { host: "local" } },
      models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
      logging: { level: "silent", format: "json" },
    });
    expect(config.tools.exec.security).toBe("allowlist");
    expect(config.permissions.approval.unattended_policy).toBe("deny");
    const logger = createLogger({ level: "silent", format: "json" });

    const start = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE;
    const clock = new ManualClock(start);
    const store = new ScheduleStore({ redis, keyPrefix });
    const queue = agentQueue(redis, keyPrefix);
    const service = new ScheduleService({ store, agentQueue: queue, clock });
    await service.create(
      {
        v: 1 as const,
        id: "nightly",
        cron: "* * * * *",
        timezone: "UTC",
        agent: { model: "scripted", task: "tidy up", maxSteps: calls.length + 2, workspace },
        owner: "ann",
        source: { kind: "cronjob" as const },
      },
      { approvalSource: "human", approver: "bob" },
    );
    const tick = start + MINUTE;
    const scheduler = new Scheduler({ store, agentQueue: queue, clock, lockLeaseMs: 60_000 });
    expect((await scheduler.runDue(tick)).results).toEqual({ fired: 1 });

    const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
    const options = processToolOptions(fence, supervisor);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    await events.waitUntilReady();
    const worker = await startWorkerPart(
      { config, logger, env: { PATH: "/usr/bin:/bin" }, redis, baseDir: dir, protectedPaths: [] },
      {
        registry: createToolRegistry([createExecTool(options), createExecuteCodeTool(options)]),
        releaseRun: (runId) => supervisor.stopAllForRun(runId),
        processCommand: (runId, id) => supervisor.backgroundCommand(runId, id),
        close: async () => undefined,
      },
    );
    try {
      const runId = scheduledRunId("nightly", tick);
      const outcome = await (await findRunJob(queue, runId))!.waitUntilFinished(events, 60_000);
      expect(outcome).toMatchObject({ status: "completed", finalAnswer: "done" });

      // Nothing hidden ran.
      expect(await readdir(markers)).toEqual([]);
      expect(existsSync(m("read-arith"))).toBe(false);

      // Every hidden construct was stopped before it ran; the control ran.
      const journal = new Journal({ redis, keyPrefix });
      const results = [...(await journal.readRun(runId)).records.entries()]
        .filter(([key]) => !key.startsWith("model:"))
        .map(
          ([, record]) =>
            (record as { result: { success: boolean; errorKind?: string; output: string } }).result,
        );
      expect(results).toHaveLength(calls.length);
      const outcomes = results.map((r) => (r.success ? `ran: ${r.output}` : r.errorKind));
      // (journal records are keyed, not ordered: compare as a multiset)
      expect(outcomes.sort()).toEqual(
        [...calls.slice(0, -1).map(() => "denied"), "ran: control-ran\n"].sort(),
      );

      // The audit trail records the real verdict and its reason for each call.
      const trail = new AuditTrail({ redis, keyPrefix });
      const decisions = (await trail.readByTrace(runId))
        .map((e) => e.entry)
        .filter((e) => e.kind === "decision") as Array<{ tool: string; verdict: string; reason: string }>;
      expect(decisions).toHaveLength(calls.length);
      for (const d of decisions.slice(0, -1)) {
        expect(d.verdict).toBe("deny");
        expect(d.reason).not.toBe("");
      }
      expect(decisions.at(-1)).toMatchObject({ tool: "exec", verdict: "allow" });
      const reasons = decisions.map((d) => d.reason).join("\n");
      expect(reasons).toMatch(/known only at run time/);
      expect(reasons).toMatch(/sh -c runs an inline script/);
      expect(reasons).toMatch(/not a conditional expression bash reads/);
    } finally {
      await worker.stop();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 120_000);
});
