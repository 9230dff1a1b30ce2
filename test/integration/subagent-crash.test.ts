import { type ChildProcess, spawn } from "node:child_process";
import { Job } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { Journal } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { agentQueue, countExecutions, crashRunFiles, testPayload } from "../helpers/agent-harness.js";
import { REPO_ROOT } from "../helpers/cli-process.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

function startWorker(env: Record<string, string>): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(process.execPath, nodeEntryArgs("test/helpers/subagent-worker-main.ts"), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const ready = new Promise<void>((done, fail) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("worker ready")) done();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => fail(new Error(`worker exited (${code}) before ready:\n${out}`)));
  });
  return { child, ready };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

/** Polls `check` every 50 ms until it is true; fails with `what` after `timeoutMs`. */
async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("delegate_task across a worker crash", () => {
  it("SIGKILL while the parent is parked waiting for its child: after a restart both finish, one child, the parent gets its answer", async () => {
    const keyPrefix = uniquePrefix("sub-crash");
    const { counter, env: files } = await crashRunFiles(
      stringify({
        tasks: {
          "parent: delegate": [
            {
              tool_calls: [
                { name: "delegate_task", arguments: { task: "child: write", allowed_tools: ["write_file"] } },
              ],
            },
            { content: "parent done" },
          ],
          "child: write": [
            { tool_calls: [{ name: "write_file", arguments: { path: "c.txt", content: "from child" } }] },
            { content: "child answer 42" },
          ],
        },
      }),
    );
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      ...files,
      // The child's write appends after 0.2 s, then holds for 10 min: the kill always lands inside it.
      TOOL_DELAY_MS: "200",
      TOOL_HOLD_MS: "600000",
      CLAIM_LEASE_MS: "1000",
      LOCK_MS: "1000",
      // Far beyond the test's deadline: the parent must be woken by its child's end, not by a timer.
      CHILD_RECHECK_MS: "600000",
    };
    const queue = agentQueue(redis, keyPrefix);
    const parent = testPayload({}, { task: "parent: delegate" });
    const childJobs = async () =>
      (await queue.getJobs(["waiting", "active", "delayed", "completed", "failed"])).filter(
        (job) => job.data.parentExecutionId === parent.runId,
      );
    const first = startWorker(env);
    let second: ReturnType<typeof startWorker> | undefined;
    try {
      await first.ready;
      await enqueueAgentRun(queue, parent);
      // The parent is parked (delayed, no worker slot) and the child is inside its write call.
      await until("the parent to park and the child to be mid-write", 20_000, async () => {
        const state = await (await Job.fromId(queue, parent.runId))?.getState();
        return state === "delayed" && (await countExecutions(counter)).size === 1;
      });
      const [running] = await childJobs();
      expect(await running?.getState()).toBe("active");
      await kill(first.child);
      // The kill landed inside the write: its journal entry is started, with no result.
      const childWrite = [
        ...(await new Journal({ redis, keyPrefix }).readRun(running!.id!)).records.entries(),
      ].find(([key]) => !key.startsWith("model:"))?.[1];
      expect(childWrite?.status).toBe("started");

      second = startWorker(env);
      await second.ready;
      await until("the parent to finish", 40_000, async () => {
        const state = await (await Job.fromId(queue, parent.runId))?.getState();
        return state === "completed" || state === "failed";
      });
      const parentJob = await Job.fromId(queue, parent.runId);
      expect(parentJob?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "parent done" });

      // One child, finished; its write ran once (the in-doubt call was not run again).
      const children = await childJobs();
      expect(children).toHaveLength(1);
      expect(await children[0]!.getState()).toBe("completed");
      expect(children[0]!.returnvalue).toMatchObject({ status: "completed", finalAnswer: "child answer 42" });
      expect([...(await countExecutions(counter)).values()]).toEqual([1]);

      // The parent's delegate_task result is the child's final answer.
      const snapshot = await new Journal({ redis, keyPrefix }).readRun(parent.runId);
      const delegated = [...snapshot.records.entries()].find(([key]) => !key.startsWith("model:"))?.[1];
      expect(delegated).toMatchObject({
        status: "completed",
        result: { success: true, output: "child answer 42" },
      });
    } finally {
      await kill(first.child);
      if (second) await kill(second.child);
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 90_000);
});
