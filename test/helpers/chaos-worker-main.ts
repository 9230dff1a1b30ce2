// A real agent worker process for the chaos suite, wired as `echo-runner worker` wires it
// (startWorkerPart: BullMQ worker, approval promoter, canceller, sweeper that re-sends unsent mails)
// with two side-effecting test tools that count every execution in COUNTER_FILE:
//   write_file — runs without asking (personal_cli profile);
//   exec       — asks a person (elevation off), so a run with an exec call parks until decided.
// `node bin/run-ts.js test/helpers/chaos-worker-main.ts`, configured by environment: REDIS_URL,
// KEY_PREFIX, COUNTER_FILE, SCRIPT_FILE, PUBLIC_URL, APPROVERS (comma-separated ids), SMTP_PORT
// (unset: mails go to the log), CONCURRENCY, TOOL_DELAY_MS. Prints "worker ready" once it takes jobs.
import { appendFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { Redis } from "ioredis";
import { Type } from "typebox";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { countingWriteTool, testConfig } from "./agent-harness.js";

const env = process.env;
const counterFile = env.COUNTER_FILE ?? "";
const delayMs = Number(env.TOOL_DELAY_MS ?? "0");
const redis = new Redis(env.REDIS_URL ?? "", { maxRetriesPerRequest: null });
// Outages of Redis are part of the suite: the connection reconnects by itself; keep stderr readable.
redis.on("error", () => undefined);
const dir = await mkdtemp(`${tmpdir()}/echo-chaos-worker-`);
const approvers = (env.APPROVERS ?? "alice")
  .split(",")
  .filter(Boolean)
  .map((id) => ({ id, email: `${id}@example.test` }));
const config = await testConfig(dir, {
  redis: { url: env.REDIS_URL, key_prefix: env.KEY_PREFIX },
  security: { profile: "personal_cli" },
  execution: {
    network_policy: "allow",
    in_doubt_policy: "fail",
    worker_concurrency: Number(env.CONCURRENCY ?? "4"),
    // The network probe at worker start asks the test's own Redis, never a public host.
    network_probe: { targets: [new URL(env.REDIS_URL ?? "redis://127.0.0.1:6379").host], timeout_ms: 1000 },
  },
  permissions: { elevated: { enabled: false }, approval: { reminder_before_seconds: 0 } },
  http: { public_url: env.PUBLIC_URL ?? "http://127.0.0.1:1" },
  smtp: env.SMTP_PORT
    ? { host: "127.0.0.1", port: Number(env.SMTP_PORT), secure: false, from: "runner@example.test" }
    : { host: "" },
  approvers,
  models: { scripted: { provider: "scripted", script: env.SCRIPT_FILE } },
  logging: { level: env.LOG_LEVEL ?? "silent", format: "json" },
});
const exec = defineTool({
  name: "exec",
  description: "appends a line to the counter file (test tool); asks a person first",
  parameters: Type.Object({ command: Type.String() }),
  async execute(args, ctx) {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    await appendFile(counterFile, `${ctx.idempotencyKey} exec ${args.command.replace(/\s+/g, "_")}\n`);
    return toolSuccess(`ran ${args.command}`);
  },
});
const logger = createLogger({ level: config.logging.level, format: "json" });
await startWorkerPart(
  { config, logger, env: {}, redis, baseDir: dir, protectedPaths: [] },
  {
    registry: createToolRegistry([exec, countingWriteTool(counterFile, { delayMs })]),
    releaseRun: async () => 0,
    close: async () => undefined,
  },
);
process.stdout.write("worker ready\n");
