import { homedir } from "node:os";
import { join } from "node:path";
import type { Cluster, Redis } from "ioredis";
import { redisSpillStore } from "../agent/index.js";
import { ApprovalStore } from "../approvals/index.js";
import type { AnyTool } from "../catalog/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import { createPathFence } from "../guard/index.js";
import { nodeFsView, systemHostResolver } from "../platform/index.js";
import {
  approverFromApprovals,
  createCronjobTool,
  ScheduleService,
  ScheduleStore,
} from "../scheduler/index.js";
import { type DeepReadonly, systemClock } from "../shared/index.js";
import {
  connectMcpServers,
  createBuiltinTools,
  createExtraTools,
  createLoopTools,
  createToolRegistry,
  ProcessRecords,
  ProcessSupervisor,
  type ReapReport,
  RedisSessionArchive,
  type SandboxHost,
  type ToolRegistry,
  unboundToolSearchTool,
  viewedPath,
} from "../tools/index.js";
import { approvalPolicyFromConfig } from "./approvals-from-config.js";
import type { PartContext } from "./part-context.js";
import { sandboxFromConfig } from "./sandbox-from-config.js";
import { extraToolRuntimeFromConfig, mcpServersFromConfig } from "./tools-from-config.js";
import { type WorkspaceLayers, workspaceLayersFromConfig } from "./workspace-layers-from-config.js";

/** The tools of a worker process, and what must happen when its runs end or the process stops. */
export interface WorkerTools {
  registry: ToolRegistry;
  /** Stops the processes a run started (run finished, failed or parked); how many were alive. */
  releaseRun(runId: string): Promise<number>;
  /** Ends the process groups dead workers on this data dir left behind (once, at worker start). */
  reapOrphans?(): ReapReport;
  /** The command a run's background process was started with (the guard judges writes by it). */
  processCommand?(runId: string, id: string): string | undefined;
  /** The runs' layers (docs/SANDBOX.md), or why the runs work on their real workspaces. */
  layers?: WorkspaceLayers;
  close(): Promise<void>;
}

/** What {@link buildToolSet} reads: a worker's PartContext, or what `tools list` has. */
export type ToolSetContext = Pick<
  PartContext,
  "config" | "env" | "redis" | "logger" | "baseDir" | "protectedPaths" | "dataDir"
>;

/** Options of {@link buildToolSet}. */
export interface ToolSetOptions {
  /** Connect to `tools.mcp.servers` and adopt their tools (a worker always does). */
  mcp: boolean;
  /**
   * Start the process supervisor's reaper and exit hook: a worker does, a one-shot listing that
   * never starts a process does not.
   */
  supervise: boolean;
  /** MCP connect timeout, ms (the SDK's default when unset). */
  mcpConnectTimeoutMs?: number;
}

/** Every tool of a worker built from config, with the external tools that could not be adopted. */
export interface ToolSet {
  readonly tools: readonly AnyTool[];
  /** MCP servers or tools that did not connect, by `mcp__<server>__<tool>` (or `__*`) with the reason. */
  readonly absent: readonly { name: string; reason: string }[];
  releaseRun(runId: string): Promise<number>;
  reapOrphans(): ReapReport;
  /** The command a run's background process was started with. */
  processCommand(runId: string, id: string): string | undefined;
  /** The runs' layers, or why there are none (a one-shot listing never makes them). */
  layers: WorkspaceLayers;
  close(): Promise<void>;
}

/**
 * The one place that decides which tools a worker has: the built-in file, process and run-state
 * tools (path fence per workspace, Redis state, spill reader, process supervisor), the web,
 * knowledge, skills, media and messaging tools, session_search over the run archive, the sub-agent
 * tools, clarify, cronjob, and the configured MCP servers' tools. `echo-runner tools list` calls it too, so
 * the list is exactly what a worker registers. A tool the catalog declares without an
 * implementation here is simply not present; the policy's tool_state layer removes it with that
 * reason.
 */
export async function buildToolSet(ctx: ToolSetContext, options: ToolSetOptions): Promise<ToolSet> {
  const { config, redis } = ctx;
  const retentionMs = config.retention.journal_days * 24 * 3600 * 1000;
  // The path fence resolves in the view of the call in progress: a run's layer when it has one.
  const hostFs = nodeFsView();
  const fs = {
    lstat: (path: string) => hostFs.lstat(viewedPath(path)),
    readlink: (path: string) => hostFs.readlink(viewedPath(path)),
  };
  const processes = new ProcessSupervisor({
    clock: systemClock,
    logger: ctx.logger,
    ...(options.supervise
      ? ctx.dataDir
        ? { records: new ProcessRecords(join(ctx.dataDir, "processes")) }
        : {}
      : { reaper: false, exitHook: false }),
  });
  const builtin = createBuiltinTools({
    // The run's fence is the strictest of restrict_to_workspace and its session mode.
    pathFence: (workspace, workspaceOnly) =>
      createPathFence({
        workspaceRoot: workspace,
        restrictToWorkspace: config.tools.restrict_to_workspace || workspaceOnly,
        ...(config.tools.safe_write_root ? { safeWriteRoot: config.tools.safe_write_root } : {}),
        homeDir: ctx.env.HOME ?? homedir(),
        protectedPaths: ctx.protectedPaths,
        fs,
      }),
    redis,
    keyPrefix: config.redis.key_prefix,
    runStateRetentionMs: retentionMs,
    spill: redisSpillStore(redis, config.redis.key_prefix, retentionMs),
    processes,
    execHost: config.tools.exec.host,
    ...sandboxOption(ctx),
    env: ctx.env,
    clock: systemClock,
  });
  const extra = createExtraTools(
    extraToolRuntimeFromConfig(config, {
      env: ctx.env,
      resolver: systemHostResolver(),
      redis,
      clock: systemClock,
      logger: ctx.logger,
      baseDir: ctx.baseDir,
      sessions: sessionArchiveFor(config, redis),
    }),
  );
  const keyPrefix = config.redis.key_prefix;
  const cronjob = createCronjobTool({
    schedules: new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) }),
    approverOf: approverFromApprovals(
      new ApprovalStore({ redis, keyPrefix, policy: approvalPolicyFromConfig(config) }),
    ),
    models: Object.keys(config.models),
  });
  const mcp = options.mcp
    ? await connectMcpServers(mcpServersFromConfig(config, ctx.env), {
        logger: ctx.logger,
        ...(options.mcpConnectTimeoutMs ? { connectTimeoutMs: options.mcpConnectTimeoutMs } : {}),
      })
    : undefined;
  const layers: WorkspaceLayers = options.supervise
    ? await workspaceLayersFromConfig(config, {
        dataDir: ctx.dataDir,
        logger: ctx.logger,
        stopRun: (runId) => processes.stopAllForRun(runId),
      })
    : { kind: "off", why: "not a worker" };
  return {
    // tool_search is built for each run over its deferred tools; the worker's own refuses to search.
    tools: [
      ...builtin,
      ...extra,
      ...createLoopTools(),
      cronjob,
      unboundToolSearchTool(),
      ...(mcp?.tools ?? []),
    ],
    absent: (mcp?.absent ?? []).map((a) => ({
      name: a.tool ? `mcp__${a.server}__${a.tool}` : `mcp__${a.server}__*`,
      reason: a.reason,
    })),
    // Processes first: none may still be in the layer's namespace when it is let go.
    releaseRun: async (runId) => {
      const stopped = await processes.stopAllForRun(runId);
      if (layers.kind === "on") await layers.layers.release(runId);
      return stopped;
    },
    reapOrphans: () => processes.reapOrphans(),
    processCommand: (runId, id) => processes.backgroundCommand(runId, id),
    layers,
    close: async () => {
      await mcp?.close();
      await processes.close();
      if (layers.kind === "on") await layers.layers.close();
    },
  };
}

/** The sandbox host when `tools.exec.host` is sandbox (start-up error for a workspace that overlaps the runner's dirs). */
function sandboxOption(ctx: ToolSetContext): { sandbox?: SandboxHost } {
  const sandbox = sandboxFromConfig(ctx.config, {
    protectedPaths: ctx.protectedPaths,
    resolver: systemHostResolver(),
    baseDir: ctx.baseDir,
  });
  return sandbox ? { sandbox } : {};
}

/** The run archive session_search reads (the worker's run deps write the same keys). */
export function sessionArchiveFor(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
): RedisSessionArchive {
  return new RedisSessionArchive({
    redis,
    keyPrefix: config.redis.key_prefix,
    retentionMs: config.retention.journal_days * 24 * 3600 * 1000,
  });
}

/** The tools this worker process has, as a registry (see {@link buildToolSet}). */
export async function toolRegistryFor(ctx: PartContext): Promise<WorkerTools> {
  const set = await buildToolSet(ctx, { mcp: true, supervise: true });
  for (const absent of set.absent) ctx.logger.warn({ absent }, "an MCP server or tool is not available");
  if (set.layers.kind === "off" && ctx.config.tools.exec.host === "sandbox")
    ctx.logger.warn(
      { why: set.layers.why },
      "runs work on their real workspaces, without a copy-on-write layer (see execution.workspace_layer)",
    );
  return {
    registry: createToolRegistry([...set.tools]),
    releaseRun: set.releaseRun,
    reapOrphans: set.reapOrphans,
    processCommand: set.processCommand,
    layers: set.layers,
    close: set.close,
  };
}
