import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants, openSync, readlinkSync } from "node:fs";
import { RunnerError } from "../../shared/index.js";
import type { WorkspaceView } from "../beneath/workspace-view.js";

/** Linux's O_PATH (node:fs does not export it). */
const O_PATH = 0o10000000;

/** Where one run's layer lives: its upper and work folders (same filesystem, outside the workspace). */
export interface LayerFolders {
  /** The real workspace: the layer's lower folder, and where the layer is mounted in the namespace. */
  readonly workspace: string;
  readonly upper: string;
  readonly work: string;
}

/** The programs a layer is made with (injected for tests; util-linux's by default). */
export interface LayerPrograms {
  readonly unshare?: string;
  readonly nsenter?: string;
  readonly mount?: string;
}

/** A mounted layer: the view its run's tools use, held open until {@link LayerNamespace.close}. */
export interface LayerNamespace {
  readonly view: WorkspaceView;
  /** Lets go of the namespace; once no process of the run is in it, the kernel unmounts the layer. */
  close(): void;
}

function failed(step: string, why: string, folders: LayerFolders): RunnerError {
  return new RunnerError(
    "WORKSPACE_LAYER_FAILED",
    `the run's layer over ${folders.workspace} could not be made (${step}: ${why}); nothing of the run touched the workspace. Run \`echo-runner doctor\` to see whether this host can make layers`,
    { data: { workspace: folders.workspace, step } },
  );
}

/** Overlay options are split at `,` and paths at `:`; a backslash escapes. Refused rather than escaped. */
function assertMountable(folders: LayerFolders): void {
  for (const path of [folders.workspace, folders.upper, folders.work]) {
    if (/[,:\\\n]/.test(path))
      throw failed(
        "mount options",
        `${JSON.stringify(path)} has a comma, colon or backslash, which overlay options cannot carry`,
        folders,
      );
  }
}

async function namespaceOf(pid: number, self: string, folders: LayerFolders): Promise<void> {
  // unshare(2) happens before unshare(1) execs its command: wait until the holder is in a namespace
  // of its own (bounded: a few milliseconds normally).
  for (let i = 0; i < 400; i++) {
    try {
      if (readlinkSync(`/proc/${pid}/ns/mnt`) !== self) return;
    } catch {
      throw failed("unshare", "the namespace holder exited at once", folders);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw failed("unshare", "no new mount namespace after 2 s", folders);
}

/**
 * Makes a mount namespace of the worker's own, mounts the layer (overlayfs: lower = the workspace,
 * upper and work in the layer's folder, `userxattr` so no privileged xattrs are needed; an overlay
 * xattr an agent sets through the layer is stored escaped, as `user.overlay.overlay.*`) over the
 * workspace's path in it, and holds the namespace and its root by descriptor. A short-lived
 * `unshare … cat` creates the namespace; once the descriptors are open it is ended, so no process
 * stands for the layer: the descriptors die with the worker, and a crash leaves only the layer's
 * folders in the data dir (mounted again on resume). As root the namespace is a plain mount
 * namespace (the sandbox drops to its uid after entering it); otherwise a user namespace maps the
 * worker to root in it, which overlay needs to mount.
 */
export async function openLayerNamespace(
  folders: LayerFolders,
  programs: LayerPrograms = {},
): Promise<LayerNamespace> {
  assertMountable(folders);
  const unshare = programs.unshare ?? "/usr/bin/unshare";
  const nsenter = programs.nsenter ?? "/usr/bin/nsenter";
  const mount = programs.mount ?? "/usr/bin/mount";
  const asRoot = process.getuid?.() === 0;
  const holder = spawn(
    unshare,
    [...(asRoot ? ["-m"] : ["-U", "-r", "-m"]), "--propagation", "private", "--", "cat"],
    { stdio: ["pipe", "ignore", "pipe"], env: { PATH: "/usr/bin:/bin" } },
  );
  let stderr = "";
  holder.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  holder.once("error", () => undefined);
  const fds: number[] = [];
  const end = async () => {
    holder.stdin?.end();
    holder.kill("SIGKILL");
    await exited;
  };
  try {
    const pid = holder.pid;
    if (pid === undefined) throw failed("unshare", `${unshare} could not be started`, folders);
    await namespaceOf(pid, readlinkSync("/proc/self/ns/mnt"), folders).catch((err: unknown) => {
      throw stderr.trim() === "" ? err : failed("unshare", stderr.trim().split("\n")[0] ?? "", folders);
    });
    const mountNs = openSync(`/proc/${pid}/ns/mnt`, constants.O_RDONLY);
    fds.push(mountNs);
    const userNs = asRoot ? undefined : openSync(`/proc/${pid}/ns/user`, constants.O_RDONLY);
    if (userNs !== undefined) fds.push(userNs);
    // Never a redirect or a metacopy (whatever the kernel's defaults): the change set is the upper
    // folder's plain files, and a redirect an agent could forge is never followed.
    const options = `lowerdir=${folders.workspace},upperdir=${folders.upper},workdir=${folders.work},userxattr,redirect_dir=nofollow,metacopy=off`;
    const mounted = spawnSync(
      nsenter,
      [
        `--target=${pid}`,
        "--mount",
        ...(asRoot ? [] : ["--user", "--preserve-credentials"]),
        "--",
        mount,
        "-t",
        "overlay",
        "overlay",
        "-o",
        options,
        folders.workspace,
      ],
      { encoding: "utf8", timeout: 10_000, env: { PATH: "/usr/bin:/bin" } },
    );
    if (mounted.status !== 0) {
      const why = (mounted.stderr || mounted.error?.message || `exit ${String(mounted.status)}`).trim();
      throw failed("mount", why.split("\n")[0] ?? why, folders);
    }
    // Opened after the mount, so the walk from it crosses into the layer at the workspace.
    const root = openSync(`/proc/${pid}/root`, O_PATH | constants.O_DIRECTORY);
    fds.push(root);
    await end();
    let open = true;
    return {
      view: {
        workspace: folders.workspace,
        root: `/proc/self/fd/${root}`,
        mountNamespace: `/proc/${process.pid}/fd/${mountNs}`,
        ...(userNs === undefined ? {} : { userNamespace: `/proc/${process.pid}/fd/${userNs}` }),
      },
      close() {
        if (!open) return;
        open = false;
        for (const fd of fds) closeSync(fd);
      },
    };
  } catch (err) {
    for (const fd of fds) closeSync(fd);
    await end();
    throw err;
  }
}
