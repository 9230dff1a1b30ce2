import { homedir } from "node:os";
import { createClarifyTool, createSubagentTools, redisSpillStore } from "../src/agent/index.js";
import { ApprovalStore } from "../src/approvals/index.js";
import { createPathFence } from "../src/guard/index.js";
import { nodeFsView, systemHostResolver } from "../src/platform/index.js";
import {
  approverFromApprovals,
  createCronjobTool,
  ScheduleService,
  ScheduleStore,
} from "../src/scheduler/index.js";
import { systemClock } from "../src/shared/index.js";
import {
  connectMcpServers,
  createBuiltinTools,
  createExtraTools,
  createToolRegistry,
  ProcessSupervisor,
  type ToolRegistry,
} from "../src/tools/index.js";
import { approvalPolicyFromConfig } from "./approvals-from-config.js";
import type { PartContext } from "./part-context.js";
import { extraToolRuntimeFromConfig, mcpServersFromConfig } from "./tools-from-config.js";

/** The tools of a worker process, and what must happen when its runs end or the process stops. */
export interface WorkerTools {
  registry: ToolRegistry;
  /** Stops the background processes a run started (run finished, failed or parked). */
  releaseRun(runId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The tools this process has: the built-in file, process and run-state tools with their runtime
 * (path fence per workspace, Redis state, spill reader, process supervisor), the web, knowledge,
 * skills, media and messaging tools, the sub-agent tools and the configured MCP servers' tools
 * (a server that does not connect is logged with its reason and left out). A tool the catalog
 * declares without an implementation here is simply not present; the policy's tool_state layer
 * removes it with that reason.
 */
export async function toolRegistryFor(ctx: PartContext): Promise<WorkerTools> {
  const { config, redis } = ctx;
  const retentionMs = config.retention.journal_days * 24 * 3600 * 1000;
  const fs = nodeFsView();
  const processes = new ProcessSupervisor({ clock: systemClock, logger: ctx.logger });
  const tools = createBuiltinTools({
    pathFence: (workspace) =>
      createPathFence({
        workspaceRoot: workspace,
        restrictToWorkspace: config.tools.restrict_to_workspace,
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
  const mcp = await connectMcpServers(mcpServersFromConfig(config, ctx.env), { logger: ctx.logger });
  for (const absent of mcp.absent) ctx.logger.warn({ absent }, "an MCP server or tool is not available");
  return {
    registry: createToolRegistry([
      ...tools,
      ...extra,
      ...createSubagentTools(),
      createClarifyTool(),
      cronjob,
      ...mcp.tools,
    ]),
    releaseRun: async (runId) => {
      await processes.stopAllForRun(runId);
    },
    close: async () => {
      await mcp.close();
      await processes.close();
    },
  };
}
