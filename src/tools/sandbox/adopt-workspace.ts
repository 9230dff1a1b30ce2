import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Gives a workspace (or another directory the sandbox must write) to the sandbox's uid, when the
 * worker runs as root and commands run as `tools.exec.sandbox.uid`: files the worker's own tools
 * wrote as root would otherwise be read-only inside. GNU `chown -R -h` walks by directory file
 * descriptors and never follows a symlink, so a link planted inside cannot redirect it to the host.
 */
export async function adoptWorkspace(dir: string, uid: number, gid: number): Promise<void> {
  await run("/usr/bin/chown", ["-R", "-h", "-P", "--", `${uid}:${gid}`, dir], {
    env: { PATH: "/usr/bin:/bin" },
  });
}
