// A real agent worker process with the sub-agent tools, for crash tests of delegate_task:
// `node bin/run-ts.js test/helpers/subagent-worker-main.ts`. Configured by environment: REDIS_URL,
// KEY_PREFIX, COUNTER_FILE, SCRIPT_FILE (playbooks by task), TOOL_DELAY_MS, TOOL_HOLD_MS (the wait
// after write_file appended, default TOOL_DELAY_MS), LOCK_MS, CLAIM_LEASE_MS,
// CHILD_RECHECK_MS. write_file counts its executions in COUNTER_FILE; delegate_task is auto-approved.
// Prints "worker ready" once it takes jobs.
import { readFile } from "node:fs/promises";
import { Redis } from "ioredis";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { createSubagentTools } from "../../src/tools/index.js";
import { countingWriteTool, testRunDeps } from "./agent-harness.js";

const env = process.env;
const redis = new Redis(env.REDIS_URL ?? "", { maxRetriesPerRequest: null });
const keyPrefix = env.KEY_PREFIX ?? "";
const { deps } = await testRunDeps({
  redis,
  keyPrefix,
  tools: [
    countingWriteTool(env.COUNTER_FILE ?? "", {
      delayMs: Number(env.TOOL_DELAY_MS ?? "0"),
      ...(env.TOOL_HOLD_MS ? { holdAfterMs: Number(env.TOOL_HOLD_MS) } : {}),
    }),
    ...createSubagentTools(),
  ],
  script: await readFile(env.SCRIPT_FILE ?? "", "utf8"),
  configOverrides: {
    permissions: {
      elevated: { enabled: false },
      approval: { mode: "off", auto_approve: ["delegate_task"] },
    },
  },
});
const lockMs = Number(env.LOCK_MS ?? "1000");
const worker = startAgentWorker({
  connection: redis,
  keyPrefix,
  concurrency: 2,
  deps: {
    ...deps,
    claimLeaseMs: Number(env.CLAIM_LEASE_MS ?? "1000"),
    childRecheckMs: Number(env.CHILD_RECHECK_MS ?? "60000"),
  },
  lockDurationMs: lockMs,
  stalledIntervalMs: Math.max(200, Math.floor(lockMs / 2)),
});
await worker.waitUntilReady();
process.stdout.write("worker ready\n");
