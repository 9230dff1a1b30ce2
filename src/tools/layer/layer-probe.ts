import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { openLayerNamespace } from "./layer-namespace.js";

/** Whether this host can give runs a layer in `dir` (the data dir's layers folder), and why not. */
export type LayerProbe = { readonly ok: true } | { readonly ok: false; readonly why: string };

/**
 * Makes one throw-away layer in `dir` exactly as a run's is made (a mount namespace, overlayfs with
 * `userxattr`, upper and work on the data dir's filesystem), writes through it and checks the lower
 * folder stayed as it was. Overlay needs Linux ≥ 5.11 for a user namespace, and an upper folder on a
 * filesystem that can carry it (not overlayfs itself, as in many containers' root).
 */
export async function probeLayers(dir: string): Promise<LayerProbe> {
  let root: string | undefined;
  let made: string | undefined;
  try {
    made = await mkdir(dir, { recursive: true, mode: 0o700 });
    root = await mkdtemp(join(dir, ".probe-"));
    const folders = { workspace: join(root, "lower"), upper: join(root, "upper"), work: join(root, "work") };
    for (const path of Object.values(folders)) await mkdir(path);
    const layer = await openLayerNamespace(folders);
    try {
      const wrote = spawnSync(
        "/usr/bin/nsenter",
        [
          `--mount=${layer.view.mountNamespace}`,
          ...(layer.view.userNamespace
            ? [`--user=${layer.view.userNamespace}`, "--preserve-credentials"]
            : []),
          "--",
          "/bin/sh",
          "-c",
          'echo probe > "$0/probe"',
          folders.workspace,
        ],
        { encoding: "utf8", timeout: 10_000 },
      );
      if (wrote.status !== 0)
        return {
          ok: false,
          why: `a write through the layer failed: ${(wrote.stderr || String(wrote.status)).trim()}`,
        };
    } finally {
      layer.close();
    }
    const leaked = spawnSync("/bin/ls", ["-A", folders.workspace], { encoding: "utf8" }).stdout.trim();
    if (leaked !== "") return { ok: false, why: "a write through the layer reached the folder below it" };
    return { ok: true };
  } catch (err) {
    return { ok: false, why: err instanceof Error ? err.message : String(err) };
  } finally {
    if (root !== undefined) await rm(root, { recursive: true, force: true }).catch(() => undefined);
    // A probe leaves no folder it made (doctor on a machine that never ran the runner): empty ones
    // only, from the deepest up, so nothing another process put there meanwhile is touched.
    if (made !== undefined) {
      for (let at = dir; at.length >= made.length; at = dirname(at)) {
        if ((await rmdir(at).catch(() => "kept")) === "kept") break;
      }
    }
  }
}
