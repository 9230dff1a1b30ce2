import { isAbsolute, relative, resolve } from "node:path";
import { RunnerError } from "../../shared/index.js";

/** System directories a sandbox workspace may not be, contain or lie in. */
export const SYSTEM_PATHS = [
  "/",
  "/usr",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/boot",
  "/dev",
  "/proc",
  "/sys",
  "/run",
  "/var/run",
  "/root",
  "/home",
] as const;

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * A workspace is the sandbox's one writable path, so it must not overlap the runner's own config
 * or data directories (either way round: inside them or containing them) nor be or contain a
 * system directory. Throws RunnerError CONFIG_INVALID naming the workspace and what it overlaps;
 * called at start-up for every configured agent workspace. `/home/<user>/...` and `/root/...`
 * below the top are allowed: only the whole of /home or /root is refused.
 */
export function checkWorkspaceOverlap(
  workspace: string,
  runnerDirs: readonly string[],
  where = "workspace",
): void {
  const ws = resolve(workspace);
  for (const dir of runnerDirs.map((d) => resolve(d))) {
    if (inside(dir, ws) || inside(ws, dir)) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `${where} ${ws} overlaps the runner's own directory ${dir}; a sandbox workspace must be outside the runner's config and data directories (and must not contain them)`,
        { data: { workspace: ws, overlaps: dir } },
      );
    }
  }
  for (const system of SYSTEM_PATHS) {
    if (
      ws === system ||
      (system !== "/" && inside(ws, system)) ||
      (inside(system, ws) && !["/", "/root", "/home", "/run", "/var/run"].includes(system))
    ) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `${where} ${ws} is or overlaps the system directory ${system}; a sandbox workspace must be a directory of its own (e.g. /srv/agents/<name>)`,
        { data: { workspace: ws, overlaps: system } },
      );
    }
  }
}
