import { posix } from "node:path";
import { PATH_ACCESS, type PathAccess } from "../../catalog/index.js";
import { isCredentialFile } from "./command-paths.js";
import type { FsView } from "./fs-view.js";

/** Rules of the path fence. */
export const PATH_RULES = [
  "path.inside",
  "path.invalid",
  "path.link-loop",
  "path.outside-workspace",
  "path.outside-write-root",
  "path.protected",
  "path.pattern-escapes",
] as const;
export type PathRule = (typeof PATH_RULES)[number];

/** Whether a tool reads or writes the path (the catalog's list, as its path arguments declare it). */
export { PATH_ACCESS, type PathAccess };

/** Inputs of the path fence (mapped from `tools.restrict_to_workspace` and `tools.safe_write_root`). */
export interface PathFenceOptions {
  /** Absolute workspace root; relative paths are resolved against it. */
  workspaceRoot: string;
  /** `tools.restrict_to_workspace`: reads and writes must stay in the workspace. Default true. */
  restrictToWorkspace?: boolean;
  /** `tools.safe_write_root`: when set, writes must stay under it. Absolute. */
  safeWriteRoot?: string;
  /** The home directory `~` stands for. */
  homeDir: string;
  /** Paths that stay read-only in every mode: the runner's own config and data directories. */
  protectedPaths?: readonly string[];
  fs: FsView;
}

/** The fence's answer for one path: allow or deny, never ask. */
export interface PathVerdict {
  verdict: "allow" | "deny";
  rule: PathRule;
  reason: string;
  /** The real path (symlinks of the longest existing prefix resolved). */
  resolvedPath: string;
}

const MAX_LINKS = 40;

/** Result of {@link resolveRealPath}. */
export interface RealPath {
  path: string;
  /** True when following symlinks did not end (a loop, or more than 40 links), or a link changed while being read. */
  loop: boolean;
  /**
   * True when a `..` comes after a component that does not exist (`new/../link/x`). Such a path
   * can only be judged lexically, and the lexical answer can be wrong: `link` may be a symlink to
   * outside, which a tool writing the fenced path would follow.
   */
  climbsMissing?: boolean;
}

/**
 * Resolves `path` as the kernel would: `~` is the home directory, a relative path starts at
 * `base`, each existing component's symlink is followed (so a link to outside is outside), and the
 * components after the longest existing prefix are added as written (so a missing file under a
 * link to outside is outside too).
 */
export function resolveRealPath(path: string, base: string, homeDir: string, fs: FsView): RealPath {
  let full = path;
  if (full === "~" || full.startsWith("~/")) full = homeDir + full.slice(1);
  if (!full.startsWith("/")) full = `${base}/${full}`;
  const pending = full.split("/").filter((c) => c !== "" && c !== ".");
  let current = "/";
  let links = 0;
  while (pending.length > 0) {
    const component = pending.shift() as string;
    if (component === "..") {
      current = posix.dirname(current);
      continue;
    }
    const candidate = current === "/" ? `/${component}` : `${current}/${component}`;
    const kind = fs.lstat(candidate);
    if (kind === undefined) {
      const path = posix.normalize([candidate, ...pending].join("/"));
      return pending.includes("..") ? { path, loop: false, climbsMissing: true } : { path, loop: false };
    }
    if (kind !== "symlink") {
      current = candidate;
      continue;
    }
    if (++links > MAX_LINKS) return { path: candidate, loop: true };
    let target: string;
    try {
      target = fs.readlink(candidate);
    } catch {
      // It stopped being a link between lstat and readlink: something is swapping it. Where the
      // path leads cannot be known, so it is judged as a loop is: denied.
      return { path: candidate, loop: true };
    }
    if (target.startsWith("/")) current = "/";
    pending.unshift(...target.split("/").filter((c) => c !== "" && c !== "."));
  }
  return { path: current, loop: false };
}

/** True when `path` is `root` or inside it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

function protectedReason(real: string, roots: readonly string[]): string | undefined {
  for (const root of roots)
    if (isInside(root, real)) return `${real} is inside ${root}, which the runner protects`;
  if (/(^|\/)\.git(\/|$)/.test(real))
    return `${real} is inside a .git directory (hooks and config there run code)`;
  if (isCredentialFile(real)) return `${real} is a credential file`;
  return undefined;
}

/** A path fence bound to one workspace: layer 1 (parameters) and layer 2 (what a walk reaches). */
export interface PathFence {
  /** Layer 1: a path parameter a tool was given. */
  check(path: string, access: PathAccess): PathVerdict;
  /** Layer 2: a glob or walk pattern, before the walk. */
  checkPattern(pattern: string, access: PathAccess): PathVerdict;
  /** Layer 2: the entries a walk or glob actually reached; the ones outside are denied. */
  filterReached(paths: readonly string[], access: PathAccess): { allowed: string[]; denied: PathVerdict[] };
}

/** Builds the path fence. The roots themselves are resolved through the same file-system view. */
export function createPathFence(options: PathFenceOptions): PathFence {
  const { fs, homeDir } = options;
  const real = (p: string, base = "/") => resolveRealPath(p, base, homeDir, fs).path;
  const workspace = real(options.workspaceRoot);
  const writeRoot = options.safeWriteRoot === undefined ? undefined : real(options.safeWriteRoot);
  const protectedRoots = (options.protectedPaths ?? []).map((p) => real(p));
  const restrict = options.restrictToWorkspace ?? true;

  function check(path: string, access: PathAccess): PathVerdict {
    if (path === "" || path.includes("\u0000")) {
      return {
        verdict: "deny",
        rule: "path.invalid",
        reason: "the path is empty or contains a NUL byte",
        resolvedPath: "",
      };
    }
    const resolved = resolveRealPath(path, workspace, homeDir, fs);
    const resolvedPath = resolved.path;
    if (resolved.loop)
      return {
        verdict: "deny",
        rule: "path.link-loop",
        reason: `${path} goes through a symlink loop (or a link that changed while it was being resolved)`,
        resolvedPath,
      };
    if (resolved.climbsMissing)
      return {
        verdict: "deny",
        rule: "path.invalid",
        reason: `${path} climbs with .. out of a folder that does not exist, so where it leads cannot be checked; write the path without ..`,
        resolvedPath,
      };
    if (access === "write") {
      const reason = protectedReason(resolvedPath, protectedRoots);
      if (reason)
        return {
          verdict: "deny",
          rule: "path.protected",
          reason: `${reason}; it is read-only in every mode`,
          resolvedPath,
        };
    }
    if (restrict && !isInside(workspace, resolvedPath)) {
      return {
        verdict: "deny",
        rule: "path.outside-workspace",
        reason: `${path} resolves to ${resolvedPath}, outside the workspace ${workspace}`,
        resolvedPath,
      };
    }
    if (access === "write" && writeRoot !== undefined && !isInside(writeRoot, resolvedPath)) {
      return {
        verdict: "deny",
        rule: "path.outside-write-root",
        reason: `${path} resolves to ${resolvedPath}, outside the safe write root ${writeRoot}`,
        resolvedPath,
      };
    }
    return {
      verdict: "allow",
      rule: "path.inside",
      reason: `${resolvedPath} is inside the allowed area`,
      resolvedPath,
    };
  }

  function checkPattern(pattern: string, access: PathAccess): PathVerdict {
    const segments = pattern.split("/");
    const firstGlob = segments.findIndex((s) => /[*?[{]/.test(s));
    if (firstGlob !== -1 && segments.slice(firstGlob).includes("..")) {
      return {
        verdict: "deny",
        rule: "path.pattern-escapes",
        reason: `the pattern ${pattern} climbs with .. after a wildcard, so where it leads cannot be fenced`,
        resolvedPath: "",
      };
    }
    const literal =
      (firstGlob === -1 ? segments : segments.slice(0, firstGlob)).join("/") ||
      (pattern.startsWith("/") ? "/" : ".");
    const verdict = check(literal, access);
    if (verdict.verdict === "deny") {
      return {
        ...verdict,
        rule: verdict.rule === "path.outside-workspace" ? "path.pattern-escapes" : verdict.rule,
        reason: `the pattern ${pattern}: ${verdict.reason}`,
      };
    }
    return verdict;
  }

  function filterReached(paths: readonly string[], access: PathAccess) {
    const allowed: string[] = [];
    const denied: PathVerdict[] = [];
    for (const p of paths) {
      const verdict = check(p, access);
      if (verdict.verdict === "allow") allowed.push(verdict.resolvedPath);
      else denied.push({ ...verdict, reason: `the walk reached ${p}: ${verdict.reason}` });
    }
    return { allowed, denied };
  }

  return { check, checkPattern, filterReached };
}
