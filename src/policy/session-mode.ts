import type { RiskLevel } from "../tools/index.js";
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
  /** File tools stay inside the workspace (every mode but full). */
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

/** A note for explain on what the mode still limits when it keeps a tool. */
export function sessionModeNote(policy: SessionPermissionPolicy, restrictToWorkspace: boolean): string {
  const files =
    policy.workspaceOnly || restrictToWorkspace ? "file access workspace-only" : "file access unrestricted";
  return `kept; exec mode ${policy.execMode}, ${files}`;
}
