import { openSync, writeSync } from "node:fs";
import { appendFile, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cluster, Redis } from "ioredis";
import { Type } from "typebox";
import { stringify } from "yaml";
import type { ApprovalPort, CallGuard, RunDeps } from "../../src/agent/index.js";
import { type AnyTool, defineTool, type ToolEnvironment, toolSuccess } from "../../src/catalog/index.js";
import { loadConfig } from "../../src/config/index.js";
import type { GatePorts } from "../../src/gate/index.js";
import { createLogger } from "../../src/logging/index.js";
import { type AgentJobPayload, type AgentQueue, openAgentQueue } from "../../src/queue/index.js";
import { buildRunDeps } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";

/**
 * A real side-effect tool for durability tests, under the catalog name write_file: every execution
 * appends one line `<idempotency key> <content>` to a counter file, so a test can count how often
 * each call really ran. Not idempotent, not read-only: an in-doubt call must never re-run.
 */
export function countingWriteTool(
  counterFile: string,
  options: {
    delayMs?: number;
    /** After appending, wait this long instead of delayMs (a crash test's kill lands inside it). */
    holdAfterMs?: number;
    /**
     * Keep the counter file open (O_APPEND) and write each line with one system call, instead of an
     * open/write/close per call: for benchmarks, where the counting must cost next to nothing. A line
     * is in the file once the call returns either way (a killed process loses nothing it wrote).
     */
    keepOpen?: boolean;
  } = {},
): AnyTool {
  const after = options.holdAfterMs ?? options.delayMs;
  let fd: number | undefined;
  const append = async (line: string) => {
    if (!options.keepOpen) return appendFile(counterFile, line);
    fd ??= openSync(counterFile, "a");
    writeSync(fd, line);
  };
  return defineTool({
    name: "write_file",
    description: "Appends a line to the counter file (test tool)",
    parameters: Type.Object({ path: Type.String(), content: Type.String() }),
    async execute(args, ctx) {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      await append(`${ctx.idempotencyKey} ${args.content}\n`);
      if (after) await new Promise((r) => setTimeout(r, after));
      return toolSuccess(`wrote ${args.content}`);
    },
  });
}

/** Lines of the counter file grouped by idempotency key → count. */
export async function countExecutions(counterFile: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let text = "";
  try {
    text = await readFile(counterFile, "utf8");
  } catch {
    return counts;
  }
  for (const line of text.split("\n").filter(Boolean)) {
    const key = line.split(" ")[0] ?? "";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** A scripted playbook of `steps` turns, each one write_file call, then a final answer. */
export function writeScript(steps: number, finalAnswer = "all done"): string {
  const turns: unknown[] = [];
  for (let i = 0; i < steps; i++) {
    turns.push({
      tool_calls: [{ name: "write_file", arguments: { path: `f${i}.txt`, content: `step-${i}` } }],
    });
  }
  turns.push({ content: finalAnswer });
  return stringify(turns);
}

/**
 * The two files the worker processes of a crash test share (test/helpers/agent-worker-main.ts reads
 * them from its environment): the scripted model's `script` (YAML, e.g. {@link writeScript}) and the
 * counter file every execution of the test tool appends a line to, outside the journal
 * ({@link countExecutions}). `env` is what to put in the workers' environment.
 */
export async function crashRunFiles(
  script: string,
): Promise<{ counter: string; env: { COUNTER_FILE: string; SCRIPT_FILE: string } }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-crash-"));
  const counter = join(dir, "counter.txt");
  const scriptFile = join(dir, "script.yaml");
  await writeFile(scriptFile, script);
  return { counter, env: { COUNTER_FILE: counter, SCRIPT_FILE: scriptFile } };
}

/** A guard that has nothing to say (the test tools touch only the counter file). */
export const NO_GUARD: CallGuard = { assess: async () => undefined };

/** Approvals are not part of these tests: any use is an error, never a silent allow. */
export const NO_APPROVALS: ApprovalPort = {
  lookup: async () => ({ status: "none" }),
  register: async () => {
    throw new Error("this test configures no approvals");
  },
};

/** Writes a project config (merged over config/default.yaml) and loads it. */
export async function testConfig(dir: string, project: Record<string, unknown>) {
  const path = join(dir, "echo.yaml");
  await writeFile(path, stringify(project));
  return (await loadConfig({ configPath: path, userConfigPath: null, env: {} })).config;
}

export interface HarnessOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  tools: AnyTool[];
  script: string;
  configOverrides?: Record<string, unknown>;
  approvals?: ApprovalPort;
  env?: NodeJS.ProcessEnv;
  gatePorts?: GatePorts;
  /** Default: network available (see buildRunDeps). */
  toolEnvironment?: ToolEnvironment;
}

/** Builds run deps the way the worker does, with a scripted model named "scripted". */
export async function testRunDeps(options: HarnessOptions): Promise<{ deps: RunDeps; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-agent-"));
  await writeFile(join(dir, "script.yaml"), options.script);
  const config = await testConfig(dir, {
    redis: { url: "redis://127.0.0.1:6379", key_prefix: options.keyPrefix },
    security: { profile: "personal_cli" },
    execution: { network_policy: "allow", in_doubt_policy: "fail" },
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
    ...options.configOverrides,
  });
  const deps = await buildRunDeps({
    config,
    // The test tools talk to local servers: the run's tool environment has network.
    toolEnvironment: options.toolEnvironment ?? { networkAvailable: true },
    redis: options.redis,
    registry: createToolRegistry(options.tools),
    guard: NO_GUARD,
    approvals: options.approvals ?? NO_APPROVALS,
    logger: createLogger({ level: "silent", format: "json" }),
    env: options.env ?? {},
    baseDir: dir,
    ...(options.gatePorts ? { gatePorts: options.gatePorts } : {}),
  });
  return { deps, dir };
}

let runCounter = 0;

/** A valid agent job payload for tests. */
export function testPayload(
  overrides: Partial<AgentJobPayload> = {},
  agent: Partial<AgentJobPayload["agent"]> = {},
): AgentJobPayload {
  runCounter++;
  const runId = `run-${process.pid}-${Date.now()}-${runCounter}`;
  return {
    v: 1,
    runId,
    traceId: `trace-${runId}`,
    agent: { model: "scripted", task: "do the steps", maxSteps: 50, workspace: tmpdir(), ...agent },
    origin: { kind: "api" },
    sessionKey: `session-${runId}`,
    userId: "ann",
    agentId: "tester",
    channel: "api",
    chatId: "",
    unattended: false,
    parentExecutionId: null,
    depth: 0,
    createdAt: Date.now(),
    ...overrides,
  };
}

/** The agent queue of a key prefix. */
export function agentQueue(redis: Redis | Cluster, keyPrefix: string): AgentQueue {
  return openAgentQueue(redis, keyPrefix);
}
