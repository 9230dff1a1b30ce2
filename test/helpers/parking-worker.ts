import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Cluster, Redis } from "ioredis";
import { Type } from "typebox";
import { stringify } from "yaml";
import type { ApprovalStore } from "../../src/approvals/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger, type Logger } from "../../src/logging/index.js";
import { approvalsFromConfig, type PartContext, startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { testConfig } from "./agent-harness.js";

/** The approver every request of a {@link startParkingWorker} asks. */
export const PARKING_APPROVER = "approver";

/** Options for {@link startParkingWorker}. */
export interface ParkingWorkerOptions {
  redis: Redis | Cluster;
  redisUrl: string;
  keyPrefix: string;
  /** `http.public_url`: the base of approval links. */
  publicUrl: string;
  /** `execution.worker_concurrency`. */
  concurrency: number;
  /** Called as an approved exec call starts, with the run's id and `performance.now()`. */
  onExecStart?: (runId: string, at: number) => void;
  /** The worker's logger (default silent). */
  logger?: Logger;
  /** `permissions.approval` settings (e.g. `wait_timeout_seconds`); default the config's. */
  approval?: Record<string, unknown>;
}

/** A running {@link startParkingWorker}. */
export interface ParkingWorker {
  /** An approval store over the same keys and policy as the worker's. */
  store: ApprovalStore;
  stop(): Promise<void>;
}

/**
 * An agent worker wired as `echo-runner worker` wires it — `startWorkerPart`: the BullMQ worker,
 * the promoter that wakes parked jobs from the approval decision events, the sweeper — with no SMTP
 * host (mails go to a silent log) and one tool under the catalog name `exec`. Elevation is off, so
 * the gate asks a person for every exec call: each run of the scripted model parks on its first
 * turn, and once approved runs the exec call (which only reports that it started) and finishes.
 */
export async function startParkingWorker(options: ParkingWorkerOptions): Promise<ParkingWorker> {
  const dir = await mkdtemp(join(tmpdir(), "echo-parking-"));
  await writeFile(
    join(dir, "script.yaml"),
    stringify([
      { tool_calls: [{ name: "exec", arguments: { command: "make deploy" } }] },
      { content: "deployed" },
    ]),
  );
  const config = await testConfig(dir, {
    redis: { url: options.redisUrl, key_prefix: options.keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      worker_concurrency: options.concurrency,
      // The network probe at worker start asks the test's own Redis, never a public host.
      network_probe: { targets: [new URL(options.redisUrl).host], timeout_ms: 1000 },
    },
    permissions: {
      elevated: { enabled: false },
      ...(options.approval ? { approval: options.approval } : {}),
    },
    http: { public_url: options.publicUrl },
    approvers: [{ id: PARKING_APPROVER, email: `${PARKING_APPROVER}@example.test` }],
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
  });
  const logger = options.logger ?? createLogger({ level: "silent", format: "json" });
  const exec = defineTool({
    name: "exec",
    description: "reports that it started (test tool)",
    parameters: Type.Object({ command: Type.String() }),
    async execute(_args, ctx) {
      options.onExecStart?.(ctx.executionId, performance.now());
      return toolSuccess("done");
    },
  });
  const ctx: PartContext = {
    config,
    logger,
    env: {},
    redis: options.redis,
    baseDir: dir,
    protectedPaths: [],
  };
  const part = await startWorkerPart(ctx, {
    registry: createToolRegistry([exec]),
    releaseRun: async () => 0,
    close: async () => undefined,
  });
  const { store } = approvalsFromConfig(config, options.redis, {}, logger);
  return { store, stop: () => part.stop() };
}
