import { execFile } from "node:child_process";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Entries looked at before giving up and letting chown walk the rest. */
const SCAN_LIMIT = 20_000;

/**
 * Whether anything in `dir` (itself included) is not owned by `uid`: a read-only walk that never
 * follows symlinks and stops at the first such entry (or after {@link SCAN_LIMIT} entries, saying
 * yes). It only decides whether to run chown; chown itself does the safe walk.
 */
async function needsAdoption(dir: string, uid: number): Promise<boolean> {
  let seen = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const info = await lstat(current).catch(() => undefined);
    if (info === undefined) continue;
    if (info.uid !== uid || ++seen > SCAN_LIMIT) return true;
    if (!info.isDirectory()) continue;
    const entries = await readdir(current).catch(() => [] as string[]);
    for (const name of entries) pending.push(join(current, name));
  }
  return false;
}

/**
 * Gives a workspace (or another directory the sandbox must write) to the sandbox's uid, when the
 * worker runs as root and commands run as `tools.exec.sandbox.uid`: files the worker's own tools
 * wrote as root would otherwise be read-only inside. GNU `chown -R -h` walks by directory file
 * descriptors and never follows a symlink, so a link planted inside cannot redirect it to the host.
 * Skipped (no process started) when everything is already the sandbox's.
 */
export async function adoptWorkspace(dir: string, uid: number, gid: number): Promise<void> {
  if (!(await needsAdoption(dir, uid))) return;
  await run("/usr/bin/chown", ["-R", "-h", "-P", "--", `${uid}:${gid}`, dir], {
    env: { PATH: "/usr/bin:/bin" },
  });
}
