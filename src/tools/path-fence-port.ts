import {
  type PathAccess,
  type ToolExecutionContext,
  type ToolFailure,
  type ToolPermissionDecision,
  toolFailure,
} from "../catalog/index.js";

/**
 * The path fence as the file tools use it: the same shape as guard's `PathFence`
 * (`createPathFence`), declared here because tools sit below guard in the layering. The worker
 * injects the guard's fence, bound to `tools.restrict_to_workspace`, `tools.safe_write_root` and
 * the protected paths, through {@link PathFenceFactory}.
 */
export interface PathFencePort {
  /** Layer 1: a path parameter. */
  check(path: string, access: PathAccess): PathFenceVerdict;
  /** Layer 2: a glob pattern, before the walk. */
  checkPattern(pattern: string, access: PathAccess): PathFenceVerdict;
  /** Layer 2: the entries a walk reached; the ones outside are denied. */
  filterReached(
    paths: readonly string[],
    access: PathAccess,
  ): { allowed: string[]; denied: PathFenceVerdict[] };
}

/** The fence's answer for one path (guard's `PathVerdict`). */
export interface PathFenceVerdict {
  readonly verdict: "allow" | "deny";
  /** Rule id, e.g. "path.outside-workspace", "path.protected". */
  readonly rule: string;
  readonly reason: string;
  /** The real path, symlinks resolved. */
  readonly resolvedPath: string;
}

/**
 * Builds the fence of one run's workspace (absolute path). `workspaceOnly` is the run's
 * `ctx.workspaceOnly` (the strictest of `tools.restrict_to_workspace` and the session mode); the
 * factory fences to the workspace when either it or its own settings say so.
 */
export type PathFenceFactory = (workspace: string, workspaceOnly: boolean) => PathFencePort;

/** The fence of the run a context belongs to. */
export function fenceOf(factory: PathFenceFactory, ctx: ToolExecutionContext): PathFencePort {
  return factory(ctx.workspace, ctx.workspaceOnly);
}

/** A fenced path: the real path to operate on, or the `denied` result to return. */
export type FencedPath =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly result: ToolFailure };

/**
 * Checks one path parameter. The tool then works on the returned real path, never on the
 * parameter, so a symlink swapped in later cannot redirect it through a component already resolved.
 */
export function fencePath(fence: PathFencePort, path: string, access: PathAccess): FencedPath {
  const verdict = fence.check(path, access);
  if (verdict.verdict === "allow") return { ok: true, path: verdict.resolvedPath };
  return {
    ok: false,
    result: toolFailure("denied", `Path ${JSON.stringify(path)} is not allowed: ${verdict.reason}`, {
      rule: verdict.rule,
      path,
    }),
  };
}

/**
 * A file tool's own permission opinion on its paths: deny what the fence denies; ask a person before
 * reading a protected path (the runner's config and data, `.git/` internals, credential files),
 * which the fence itself only protects against writes.
 */
export function pathPermission(
  fence: PathFencePort,
  paths: readonly string[],
  access: PathAccess,
): ToolPermissionDecision {
  for (const path of paths) {
    const verdict = fence.check(path, access);
    if (verdict.verdict === "deny") return { behavior: "deny", reason: verdict.reason };
  }
  if (access === "read") {
    for (const path of paths) {
      const asWrite = fence.check(path, "write");
      if (asWrite.rule === "path.protected") {
        return { behavior: "ask", reason: `reading a protected path: ${asWrite.reason}` };
      }
    }
  }
  return { behavior: "passthrough" };
}

/** True when `path` is `root` or inside it (both absolute and normalised). */
export function isPathInside(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

/** The workspace's real path, as the fence resolves it. */
export function realWorkspace(fence: PathFencePort): string {
  return fence.check(".", "read").resolvedPath;
}
