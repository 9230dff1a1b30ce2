import type { RiskLevel } from "../catalog/index.js";
import type { SessionPermissionMode } from "./settings.js";

/** seed 002 `ExecMode`: how exec calls are treated. */
export const EXEC_MODES = ["deny", "allowlist", "ask", "auto", "full"] as const;
export type ExecMode = (typeof EXEC_MODES)[number];

/** seed 002 `EXEC_MODE_BY_PERMISSION_MODE`. */
export const EXEC_MODE_BY_PERMISSION_MODE = {
  "read-only": "deny",
  guarded: "ask",
  workspace: "auto",
  full: "full",
} as const satisfies Record<SessionPermissionMode, ExecMode>;

/** The session's permission policy (seed 002 `resolveSessionPermissionCoreToolPolicy`). */
export interface SessionPermissionPolicy {
  readonly mode: SessionPermissionMode;
  readonly execMode: ExecMode;
  /**
   * File tools stay inside the workspace (every mode but full). The run's fence is the strictest of
   * this and `tools.restrict_to_workspace`: see {@link resolveWorkspaceFence}.
   */
  readonly workspaceOnly: boolean;
  /** Only read-only tools remain (read-only mode). */
  readonly readOnly: boolean;
}

/** Resolves a session permission mode into its exec mode and limits. */
export function resolveSessionPermissionPolicy(mode: SessionPermissionMode): SessionPermissionPolicy {
  return {
    mode,
    execMode: EXEC_MODE_BY_PERMISSION_MODE[mode],
    workspaceOnly: mode !== "full",
    readOnly: mode === "read-only",
  };
}

/** Why the session mode removes a tool of `risk`, or undefined when it keeps it. */
export function sessionModeRemoval(policy: SessionPermissionPolicy, risk: RiskLevel): string | undefined {
  if (policy.readOnly && risk !== "read_only") {
    return `session mode read-only keeps only read-only tools, and this tool's risk is ${risk}`;
  }
  return undefined;
}

/**
 * The effective path fence of a run: the strictest of `tools.restrict_to_workspace` and the session
 * mode (every mode but full is workspace-only), with the settings that make it so. The file tools,
 * the guard's path checks and exec's working directory and path operands all use this one answer.
 */
export interface WorkspaceFence {
  /** True when every path a tool touches must resolve inside the run's workspace. */
  readonly workspaceOnly: boolean;
  /** What makes it so, e.g. "session mode workspace", or what leaves it open. */
  readonly because: string;
}

/** {@link WorkspaceFence} of a session policy and `tools.restrict_to_workspace`. */
export function resolveWorkspaceFence(
  policy: SessionPermissionPolicy,
  restrictToWorkspace: boolean,
): WorkspaceFence {
  const reasons = [
    ...(policy.workspaceOnly ? [`session mode ${policy.mode}`] : []),
    ...(restrictToWorkspace ? ["tools.restrict_to_workspace"] : []),
  ];
  if (reasons.length > 0) return { workspaceOnly: true, because: reasons.join(" and ") };
  return {
    workspaceOnly: false,
    because: "session mode full and tools.restrict_to_workspace false",
  };
}

/** A note for explain on what the mode still limits when it keeps a tool. */
export function sessionModeNote(policy: SessionPermissionPolicy, restrictToWorkspace: boolean): string {
  const fence = resolveWorkspaceFence(policy, restrictToWorkspace);
  const files = fence.workspaceOnly
    ? `file access and exec path operands workspace-only (${fence.because})`
    : `file access unrestricted (${fence.because})`;
  return `kept; exec mode ${policy.execMode}, ${files}`;
}
