import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyTool, ExecHost, ToolExecutionContext } from "../../catalog/index.js";
import { createLogger } from "../../logging/index.js";
import { systemClock } from "../../shared/index.js";
import { type BuiltinToolLimits, DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import type { PathFenceFactory, PathFencePort } from "../path-fence-port.js";
import { resolveEnvAllow } from "../process/child-env.js";
import { ProcessSupervisor } from "../process/process-supervisor.js";
import type { ProcessToolOptions } from "../process/process-tool-options.js";
import { createToolExecutionContext } from "./execution-context.js";

/**
 * Test fixtures of the built-in tools (used only by their tests): a real temp workspace and a
 * context for one call. The path fence is the guard's real one, passed in by each test (tools may
 * not import guard; tests may).
 */

/** A new empty directory under the OS temp dir, by its real path. */
export async function tempWorkspace(label = "ws"): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), `echo-${label}-`)));
}

let callIndex = 0;

/** The context of one call of `tool` in `workspace`, allowed to call it. */
export function callContext(
  tool: AnyTool | string,
  workspace: string,
  overrides: {
    executionId?: string;
    memoryScope?: string;
    params?: unknown;
    allowedTools?: string[];
    /** The run's fence (default true, as createToolExecutionContext's). */
    workspaceOnly?: boolean;
  } = {},
): ToolExecutionContext {
  const name = typeof tool === "string" ? tool : tool.name;
  const executionId = overrides.executionId ?? `run-${process.pid}-${++callIndex}`;
  return createToolExecutionContext({
    executionId,
    traceId: `trace-${executionId}`,
    sessionKey: `session-${executionId}`,
    userId: "ann",
    agentId: "tester",
    call: { toolName: name, callIndex: callIndex++, params: overrides.params ?? {} },
    allowedTools: overrides.allowedTools ?? [name],
    channel: "cli",
    unattended: false,
    workspace,
    ...(overrides.workspaceOnly === undefined ? {} : { workspaceOnly: overrides.workspaceOnly }),
    ...(overrides.memoryScope ? { memoryScope: overrides.memoryScope } : {}),
  });
}

/**
 * A fence factory over guard's real `createPathFence` with the given settings (all but the
 * workspace), fenced to the workspace whenever the run's `workspaceOnly` says so (as the worker's).
 */
export function fenceFactory<O extends { workspaceRoot: string; restrictToWorkspace?: boolean }>(
  create: (options: O) => PathFencePort,
  settings: Omit<O, "workspaceRoot">,
): PathFenceFactory {
  return (workspace, workspaceOnly) =>
    create({
      ...settings,
      workspaceRoot: workspace,
      ...(workspaceOnly ? { restrictToWorkspace: true } : {}),
    } as O);
}

/** A silent logger for tests. */
export const silentLogger = createLogger({ level: "silent", format: "json" });

/** A supervisor with a short kill grace (300 ms) and its reaper; close it after the tests. */
export function testSupervisor(): ProcessSupervisor {
  return new ProcessSupervisor({ clock: systemClock, logger: silentLogger, killGraceMs: 300 });
}

/** Options of the exec-class tools over a real fence and supervisor. */
export function processToolOptions(
  pathFence: PathFenceFactory,
  processes: ProcessSupervisor,
  overrides: { env?: NodeJS.ProcessEnv; execHost?: ExecHost; limits?: Partial<BuiltinToolLimits> } = {},
): ProcessToolOptions {
  return {
    pathFence,
    processes,
    execHost: overrides.execHost ?? "local",
    env: overrides.env ?? { PATH: process.env.PATH, HOME: process.env.HOME },
    envAllow: resolveEnvAllow(),
    limits: { ...DEFAULT_BUILTIN_LIMITS, killGraceMs: 300, ...overrides.limits },
    clock: systemClock,
  };
}

/** Polls `predicate` every 20 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return predicate();
}
