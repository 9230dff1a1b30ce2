import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Job } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { AuditTrail, Journal, type ToolAuditEntry } from "../../src/journal/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { agentQueue, countExecutions, testPayload } from "../helpers/agent-harness.js";
import { REPO_ROOT } from "../helpers/cli-process.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());

interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
  output(): string;
}

function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, nodeEntryArgs("test/helpers/agent-stall-worker-main.ts"), {
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
  return { child, ready, output: () => out };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

/** Polls `probe` every 50 ms until it returns a value, or fails after `timeoutMs` naming `what`. */
async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const CONTENTS = ["before", "block", "after"];

describe("two workers on one queue with a forced stall", () => {
  it("executes the stalled call once: the second worker finds the first one's live claim and waits", async () => {
    const keyPrefix = uniquePrefix("stall");
    const dir = await mkdtemp(join(tmpdir(), "echo-stall-"));
    const files = {
      counter: join(dir, "counter.txt"),
      entered: join(dir, "entered.txt"),
      release: join(dir, "release"),
      script: join(dir, "script.yaml"),
    };
    await writeFile(
      files.script,
      stringify([
        ...CONTENTS.map((content, i) => ({
          tool_calls: [{ name: "write_file", arguments: { path: `f${i}.txt`, content } }],
        })),
        { content: "survived the stall" },
      ]),
    );
    const env = {
      REDIS_URL: testRedisUrl(),
      KEY_PREFIX: keyPrefix,
      COUNTER_FILE: files.counter,
      SCRIPT_FILE: files.script,
      ENTERED_FILE: files.entered,
      RELEASE_FILE: files.release,
      // The job lock lapses 0.5 s into the block; the journal claim stays live far longer, so the
      // second worker must see a held claim, not an in-doubt one.
      LOCK_MS: "500",
      CLAIM_LEASE_MS: "6000",
      BLOCK_CAP_MS: "30000",
    };
    const queue = agentQueue(redis, keyPrefix);
    const workers = [startWorker(env), startWorker(env)];
    try {
      await Promise.all(workers.map((w) => w.ready));
      const payload = testPayload();
      await enqueueAgentRun(queue, payload);

      // Whichever worker took the job is now blocked inside the "block" call.
      const blockedPid = await waitFor("a worker to enter the blocking call", 30_000, async () =>
        existsSync(files.entered) ? (await readFile(files.entered, "utf8")).trim() || undefined : undefined,
      );
      const blocked = workers.find((w) => String(w.child.pid) === blockedPid);
      expect(blocked, "the blocked pid is one of the two workers").toBeDefined();

      // The lock lapses, the other worker takes the job over, meets the live claim and parks the job.
      // Only the other worker can do that: the blocked one's event loop is stopped.
      const blockKey = async () => [...(await countExecutions(files.counter)).entries()][1];
      const seen = await waitFor("the second worker to take the stalled job", 20_000, async () => {
        const job = await Job.fromId(queue, payload.runId);
        if ((await job?.getState()) === "delayed") return "parked";
        const runs = (await blockKey())?.[1] ?? 0;
        return runs > 1 ? `ran the blocked call ${runs} times` : undefined;
      });
      expect(seen, "the second worker parks the job instead of running the call again").toBe("parked");
      const parked = await Job.fromId(queue, payload.runId);
      expect(parked?.stalledCounter).toBeGreaterThanOrEqual(1);
      expect(parked?.attemptsStarted).toBeGreaterThanOrEqual(2);
      expect(existsSync(files.release), "the first worker is still inside the tool").toBe(false);

      const journal = new Journal({ redis, keyPrefix });
      const during = await journal.readRun(payload.runId);
      const blockedKey = (await blockKey())?.[0] ?? "";
      expect(during.records.get(blockedKey)).toMatchObject({ status: "started", attempt: 1 });
      expect(during.records.get(blockedKey)?.owner.startsWith(`${blockedPid}:`)).toBe(true);

      await writeFile(files.release, "go\n");
      const state = await waitFor("the run to finish", 60_000, async () => {
        const s = await (await Job.fromId(queue, payload.runId))?.getState();
        return s === "completed" || s === "failed" ? s : undefined;
      });
      expect(state, workers.map((w) => w.output()).join("\n---\n")).toBe("completed");
      const job = await Job.fromId(queue, payload.runId);
      expect(job?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "survived the stall",
        toolCalls: 3,
      });

      // Each side effect happened exactly once, and the journal and audit trail agree.
      const counts = await countExecutions(files.counter);
      expect([...counts.values()]).toEqual([1, 1, 1]);
      const lines = (await readFile(files.counter, "utf8")).trim().split("\n");
      expect(lines.map((l) => l.split(" ")[1])).toEqual(CONTENTS);
      const after = await journal.readRun(payload.runId);
      for (const key of counts.keys()) {
        const record = after.records.get(key);
        expect(record, `journal record of ${key}`).toMatchObject({
          status: "completed",
          attempt: 1,
          result: { success: true },
        });
      }
      expect(after.records.get(blockedKey)?.owner.startsWith(`${blockedPid}:`)).toBe(true);
      const trail = new AuditTrail({ redis, keyPrefix });
      const executions = (await trail.readByTrace(payload.traceId)).filter(
        (r): r is typeof r & { entry: ToolAuditEntry } => r.entry.kind === "execution",
      );
      expect(executions.map((r) => r.entry.idempotencyKey).sort()).toEqual([...counts.keys()].sort());
      expect(executions.every((r) => r.entry.kind === "execution" && !r.entry.isReplay)).toBe(true);
      expect((await trail.verify()).ok).toBe(true);
    } finally {
      await writeFile(files.release, "go\n");
      await Promise.all(workers.map((w) => kill(w.child)));
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
    }
  }, 120_000);
});
