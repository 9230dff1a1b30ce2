// A real agent worker process for the stall test: `node bin/run-ts.js test/helpers/agent-stall-worker-main.ts`.
// Configured by environment: REDIS_URL, KEY_PREFIX, COUNTER_FILE, SCRIPT_FILE, CLAIM_LEASE_MS, LOCK_MS,
// ENTERED_FILE, RELEASE_FILE, BLOCK_CAP_MS. Prints "worker ready" once it takes jobs.
//
// Its write_file tool, given content "block", performs its side effect (one counter line), writes
// this process's pid to ENTERED_FILE, then blocks the event loop synchronously until RELEASE_FILE
// exists (at most BLOCK_CAP_MS): no lock renewal, no claim renewal, nothing runs — a CPU-bound tool
// as BullMQ sees it. The job's lock lapses and another worker takes the job while this one is still
// inside the tool.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { Redis } from "ioredis";
import { Type } from "typebox";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { testRunDeps } from "./agent-harness.js";

const env = process.env;
const counterFile = env.COUNTER_FILE ?? "";
const enteredFile = env.ENTERED_FILE ?? "";
const releaseFile = env.RELEASE_FILE ?? "";
const blockCapMs = Number(env.BLOCK_CAP_MS ?? "30000");

function blockUntilReleased(): void {
  const tick = new Int32Array(new SharedArrayBuffer(4));
  const cap = Date.now() + blockCapMs;
  // Atomics.wait sleeps the thread itself: the event loop is stopped, not merely busy.
  while (!existsSync(releaseFile) && Date.now() < cap) Atomics.wait(tick, 0, 0, 5);
}

const blockingWriteTool = defineTool({
  name: "write_file",
  description: "Appends a line to the counter file; content 'block' then blocks the process (test tool)",
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  async execute(args, ctx) {
    appendFileSync(counterFile, `${ctx.idempotencyKey} ${args.content}\n`);
    if (args.content === "block") {
      writeFileSync(enteredFile, `${process.pid}\n`);
      blockUntilReleased();
    }
    return toolSuccess(`wrote ${args.content}`);
  },
});

const redis = new Redis(env.REDIS_URL ?? "", { maxRetriesPerRequest: null });
const keyPrefix = env.KEY_PREFIX ?? "";
const { deps } = await testRunDeps({
  redis,
  keyPrefix,
  tools: [blockingWriteTool],
  script: await readFile(env.SCRIPT_FILE ?? "", "utf8"),
});
const lockMs = Number(env.LOCK_MS ?? "500");
const worker = startAgentWorker({
  connection: redis,
  keyPrefix,
  concurrency: 1,
  deps: { ...deps, claimLeaseMs: Number(env.CLAIM_LEASE_MS ?? "6000") },
  lockDurationMs: lockMs,
  stalledIntervalMs: Math.max(100, Math.floor(lockMs / 2)),
});
// The lock renewal that fails after the block is expected here; the journal keeps the run safe.
worker.on("error", () => undefined);
await worker.waitUntilReady();
process.stdout.write("worker ready\n");
