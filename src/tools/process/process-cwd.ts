import { stat } from "node:fs/promises";
import {
  PASSTHROUGH,
  type ToolExecutionContext,
  type ToolPermissionDecision,
  toolFailure,
} from "../../catalog/index.js";
import { viewedPath } from "../beneath/workspace-view.js";
import { type FencedPath, fenceOf, isPathInside, realWorkspace } from "../path-fence-port.js";
import type { ProcessToolOptions } from "./process-tool-options.js";

/**
 * The working directory of a process: the fence must allow it and, whatever
 * `restrict_to_workspace` says, it must be inside the workspace and an existing directory.
 */
export async function resolveProcessCwd(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string | undefined,
): Promise<FencedPath> {
  const fence = fenceOf(options.pathFence, ctx);
  const shown = cwd ?? ".";
  const verdict = fence.check(shown, "read");
  const workspace = realWorkspace(fence);
  if (verdict.verdict === "deny" || !isPathInside(workspace, verdict.resolvedPath)) {
    const reason =
      verdict.verdict === "deny"
        ? verdict.reason
        : `${verdict.resolvedPath} is outside the workspace ${workspace}`;
    return {
      ok: false,
      result: toolFailure(
        "denied",
        `cwd ${JSON.stringify(shown)} is not allowed: ${reason}; processes run inside the workspace`,
        {
          rule: verdict.verdict === "deny" ? verdict.rule : "path.outside-workspace",
        },
      ),
    };
  }
  const info = await stat(viewedPath(verdict.resolvedPath)).catch(() => undefined);
  if (!info?.isDirectory()) {
    return {
      ok: false,
      result: toolFailure("business", `cwd ${JSON.stringify(shown)} is not an existing directory`),
    };
  }
  return { ok: true, path: verdict.resolvedPath };
}

/** exec-class tools' own opinion on a call: deny a cwd the process could not run in. */
export function cwdPermission(
  options: ProcessToolOptions,
  ctx: ToolExecutionContext,
  cwd: string | undefined,
): ToolPermissionDecision {
  if (cwd === undefined) return PASSTHROUGH;
  const fence = fenceOf(options.pathFence, ctx);
  const verdict = fence.check(cwd, "read");
  if (verdict.verdict === "deny") return { behavior: "deny", reason: verdict.reason };
  const workspace = realWorkspace(fence);
  if (!isPathInside(workspace, verdict.resolvedPath)) {
    return { behavior: "deny", reason: `cwd ${verdict.resolvedPath} is outside the workspace ${workspace}` };
  }
  return PASSTHROUGH;
}
