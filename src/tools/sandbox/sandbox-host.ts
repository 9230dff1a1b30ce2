import { spawnSync } from "node:child_process";
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { chown, lstat, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { NetworkPolicy, ToolReadiness } from "../../catalog/index.js";
import { RunnerError } from "../../shared/index.js";
import { currentWorkspaceView, viewedPath } from "../beneath/workspace-view.js";
import type { CommandLaunch } from "../process/command-launch.js";
import { adoptWorkspace } from "./adopt-workspace.js";
import {
  buildBwrapArgs,
  proxyEnv,
  SANDBOX_PATH,
  SANDBOX_PROXY_SOCKET,
  SECCOMP_FD,
  sandboxCgroupLaunch,
  sandboxSeccompLaunch,
} from "./bwrap-args.js";
import { type EgressProxyOptions, startEgressProxy } from "./egress-proxy.js";
import { enterLayer } from "./layer-launch.js";
import { createSandboxCgroup, detectSandboxCgroups, type SandboxCgroups } from "./sandbox-cgroup.js";
import { resolveSandboxLimits, type SandboxLimits } from "./sandbox-settings.js";
import { buildSeccompFilter } from "./seccomp-filter.js";
import { resolveSystemMounts, type SandboxMount } from "./system-mounts.js";
import { checkWorkspaceOverlap } from "./workspace-overlap.js";

/** `execution.network_policy` as the sandbox applies it. */
export type SandboxNetworkPolicy = NetworkPolicy;

/** Options of {@link createSandboxHost}. */
export interface SandboxHostOptions {
  /** `tools.exec.sandbox.*`; missing fields take the defaults. */
  readonly limits?: Partial<SandboxLimits>;
  /** `execution.network_policy`: deny → no network at all; restricted / allow → through the proxy. */
  readonly network: SandboxNetworkPolicy;
  /** The proxy's ports (the guard's SSRF check and the network policy), needed unless network is deny. */
  readonly egress?: EgressProxyOptions;
  /** Paths of the programs the sandbox needs (injected so readiness can be tested). Defaults under /usr/bin. */
  readonly bwrap?: string;
  readonly socat?: string;
  readonly prlimit?: string;
  readonly bash?: string;
  /** The shell that opens the seccomp filter on bwrap's descriptor and execs it. Default /bin/sh. */
  readonly sh?: string;
  /** setpriv, which drops a cgroup launch's root shell to the sandbox's uid. Default /usr/bin/setpriv. */
  readonly setpriv?: string;
  /** nsenter, which joins a run's layer (its mount namespace) before the sandbox starts. Default /usr/bin/nsenter. */
  readonly nsenter?: string;
  /**
   * Where per-sandbox totals (memory, processes) are bound: detected by default (a root worker with
   * cgroup v1 memory and pids), `{ kind: "none" }` to keep only the per-process limits.
   */
  readonly cgroups?: SandboxCgroups;
  /** Where per-call directories (the proxy's socket) are made. Default: the OS temp directory. */
  readonly tempDir?: string;
  /** The worker's uid (default process.getuid()): as root, commands run as `limits.uid`. */
  readonly workerUid?: number;
  /** The runner's own config and data paths: a workspace overlapping them is refused. */
  readonly runnerDirs?: readonly string[];
}

/** One call's request for a sandbox. */
export interface SandboxRequest {
  /** Real path of the workspace (the only writable path). */
  readonly workspace: string;
  /** Real path of the working directory, inside the workspace. */
  readonly cwd: string;
  /** The scrubbed child environment (and the tool's credentials); HOME and TMPDIR are replaced. */
  readonly env: Record<string, string>;
  readonly command: readonly [string, ...string[]];
  /** A directory mounted read-only at /run/echo-code (execute_code's source). */
  readonly codeDir?: string;
}

/** The sandbox host of exec-class tools (`tools.exec.host: sandbox`). */
export interface SandboxHost {
  /** Whether bwrap is there and can make a sandbox here; the reason says how to fix it if not. */
  readiness(): ToolReadiness;
  /** Everything one call needs: a fresh sandbox, its own proxy when it has network. */
  prepare(request: SandboxRequest): Promise<CommandLaunch>;
  readonly limits: SandboxLimits;
  readonly network: SandboxNetworkPolicy;
  /** Uid/gid bwrap is started as, when the worker is root. */
  readonly runAs: { uid: number; gid: number } | undefined;
  /** Where the sandbox's totals are bound, or why they are not. */
  readonly cgroups: SandboxCgroups;
}

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap socat; Fedora: dnf install bubblewrap socat) and allow unprivileged user namespaces (in a container: --security-opt seccomp=unconfined or a profile that permits clone(CLONE_NEWUSER), and no AppArmor restriction), or set tools.exec.host: local knowingly to run commands on this host without containment";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * As root, bwrap starts as the sandbox uid, which must be able to reach the workspace: every
 * ancestor must be searchable by others. Throws naming the directory and the fix.
 */
async function assertReachable(workspace: string, uid: number): Promise<void> {
  for (let dir = dirname(workspace); ; dir = dirname(dir)) {
    const info = await stat(dir);
    if ((info.mode & 0o001) === 0 && info.uid !== uid) {
      throw new RunnerError(
        "TOOL_NOT_READY",
        `the sandbox runs commands as uid ${uid}, which cannot reach the workspace ${workspace}: ${dir} is not searchable by others; chmod o+x ${dir} or move the workspace`,
        { data: { workspace, dir } },
      );
    }
    if (dir === "/") return;
  }
}

/**
 * The layer's top folder is the workspace's folder as the sandbox sees it: it must belong to the
 * sandbox's identity like the workspace does (adopted above), or nothing could be made at its top.
 */
async function adoptLayerRoot(workspace: string, identity: { uid: number; gid: number }): Promise<void> {
  const merged = viewedPath(workspace);
  const info = await lstat(merged);
  if (info.uid !== identity.uid || info.gid !== identity.gid) await chown(merged, identity.uid, identity.gid);
}

/** The variables every sandbox sets itself: HOME and TMPDIR on the private /tmp. */
function sandboxEnv(env: Record<string, string>, network: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (/^(HOME|TMPDIR|PWD|OLDPWD|(HTTPS?|ALL|NO)_PROXY|(https?|all|no)_proxy)$/.test(name)) continue;
    out[name] = value;
  }
  out.HOME = "/tmp";
  out.TMPDIR = "/tmp";
  out.PATH = SANDBOX_PATH;
  return network ? { ...out, ...proxyEnv() } : out;
}

/**
 * Writes the seccomp filter once per worker, where the sandbox's uid can read it and nobody else
 * can replace it: a root-owned directory (0711, not listable) with the file 0644, removed at exit.
 */
function writeSeccompFilter(tempDir: string): string | undefined {
  const filter = buildSeccompFilter();
  if (filter === undefined) return undefined;
  const dir = mkdtempSync(join(tempDir, "echo-seccomp-"));
  chmodSync(dir, 0o711);
  const path = join(dir, "filter.bpf");
  writeFileSync(path, filter, { mode: 0o644, flag: "wx" });
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return path;
}

/**
 * Builds the sandbox host. Nothing is started here; readiness is probed once, on first ask, by
 * running `true` in a real sandbox (bwrap present is not enough: user namespaces may be off).
 */
export function createSandboxHost(options: SandboxHostOptions): SandboxHost {
  const limits = resolveSandboxLimits(options.limits);
  const bwrap = options.bwrap ?? "/usr/bin/bwrap";
  const socat = options.socat ?? "/usr/bin/socat";
  const prlimit = options.prlimit ?? "/usr/bin/prlimit";
  const bash = options.bash ?? "/usr/bin/bash";
  const sh = options.sh ?? "/bin/sh";
  const setpriv = options.setpriv ?? "/usr/bin/setpriv";
  const nsenter = options.nsenter ?? "/usr/bin/nsenter";

  let seccompPath: string | undefined;
  const seccomp = (): string => {
    seccompPath ??= writeSeccompFilter(options.tempDir ?? tmpdir());
    if (seccompPath === undefined) {
      throw new RunnerError(
        "TOOL_NOT_READY",
        `the sandbox has no seccomp filter for this architecture (${process.arch}); exec-class tools stay off rather than run without one`,
      );
    }
    return seccompPath;
  };
  const workerUid = options.workerUid ?? process.getuid?.() ?? 0;
  const runAs = workerUid === 0 ? { uid: limits.uid, gid: limits.uid } : undefined;
  const inside = runAs ?? { uid: workerUid, gid: process.getgid?.() ?? workerUid };
  const cgroups: SandboxCgroups =
    options.cgroups ??
    (runAs
      ? detectSandboxCgroups()
      : { kind: "none", why: "the worker is not root, so it cannot make cgroups" });
  let system: readonly SandboxMount[] | undefined;
  let ready: ToolReadiness | undefined;

  function probe(): ToolReadiness {
    for (const [what, path] of [
      ["bwrap", bwrap],
      ["prlimit", prlimit],
      ["bash", bash],
      ["sh", sh],
      ...(runAs && cgroups.kind !== "none" ? [["setpriv", setpriv] as const] : []),
      ...(options.network === "deny" ? [] : [["socat", socat]]),
    ] as const) {
      if (!executable(path)) {
        return {
          ready: false,
          detail: `tools.exec.host is sandbox, but ${what} (${path}) is not installed; ${INSTALL_HINT}`,
        };
      }
    }
    system ??= resolveSystemMounts();
    let filter: string;
    try {
      filter = seccomp();
    } catch (err) {
      return { ready: false, detail: `tools.exec.host is sandbox, but ${(err as Error).message}` };
    }
    const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), "echo-sbx-probe-"));
    if (runAs) chownSync(dir, runAs.uid, runAs.gid);
    const launch = sandboxSeccompLaunch(
      sh,
      filter,
      bwrap,
      buildBwrapArgs({
        system,
        workspace: dir,
        cwd: dir,
        uid: inside.uid,
        gid: inside.gid,
        limits,
        prlimit,
        bash,
        seccompFd: SECCOMP_FD,
        command: ["/usr/bin/true"],
      }),
    );
    const result = spawnSync(launch.file, launch.args, {
      encoding: "utf8",
      timeout: 10_000,
      env: { PATH: "/usr/bin:/bin" },
      ...(runAs ?? {}),
    });
    rmSync(dir, { recursive: true, force: true });
    if (result.status !== 0) {
      const why = (result.stderr || result.error?.message || `exit ${String(result.status)}`)
        .trim()
        .split("\n")[0];
      return {
        ready: false,
        detail: `tools.exec.host is sandbox, but bubblewrap cannot create a sandbox here (${why}); ${INSTALL_HINT}`,
      };
    }
    const who = runAs ? `, commands run as uid ${runAs.uid}` : "";
    const totals =
      cgroups.kind === "none"
        ? `, per-process limits only (${cgroups.why})`
        : `, memory and processes bound per sandbox (cgroup ${cgroups.kind})`;
    return {
      ready: true,
      detail: `ready (tools.exec.host is sandbox: bubblewrap with a seccomp filter, network ${options.network}${who}${totals})`,
    };
  }

  return {
    limits,
    network: options.network,
    runAs,
    cgroups,
    readiness() {
      ready ??= probe();
      return ready;
    },
    async prepare(request) {
      const filter = seccomp();
      system ??= resolveSystemMounts();
      checkWorkspaceOverlap(request.workspace, options.runnerDirs ?? []);
      if (runAs) {
        await assertReachable(request.workspace, runAs.uid);
        await adoptWorkspace(request.workspace, runAs.uid, runAs.gid);
      }
      const withNetwork = options.network !== "deny";
      let proxyDir: string | undefined;
      let close: (() => Promise<void>) | undefined;
      if (withNetwork) {
        if (options.egress === undefined)
          throw new Error("a sandbox with network needs the egress proxy's ports");
        proxyDir = await mkdtemp(join(options.tempDir ?? tmpdir(), "echo-sbx-"));
        if (runAs) await chown(proxyDir, runAs.uid, runAs.gid);
        const proxy = await startEgressProxy(join(proxyDir, SANDBOX_PROXY_SOCKET), options.egress);
        if (runAs) await chown(proxy.socketPath, runAs.uid, runAs.gid);
        close = () => proxy.close();
      }
      if (request.codeDir !== undefined && runAs) await adoptWorkspace(request.codeDir, runAs.uid, runAs.gid);
      const args = buildBwrapArgs({
        seccompFd: SECCOMP_FD,
        system,
        workspace: request.workspace,
        cwd: request.cwd,
        uid: inside.uid,
        gid: inside.gid,
        limits,
        prlimit,
        bash,
        socat,
        command: request.command,
        ...(proxyDir === undefined ? {} : { proxyDir }),
        ...(request.codeDir === undefined ? {} : { codeDir: request.codeDir }),
      });
      let disposed = false;
      const group = runAs && cgroups.kind !== "none" ? createSandboxCgroup(cgroups, limits) : undefined;
      const plain =
        group && runAs
          ? sandboxCgroupLaunch(sh, group.procs, filter, setpriv, runAs, bwrap, args)
          : { ...sandboxSeccompLaunch(sh, filter, bwrap, args), ...(runAs ?? {}) };
      // In the run's layer the sandbox binds the layer, never the real workspace; the launcher then
      // starts at `/`, since the working directory may exist only in the layer.
      const view = currentWorkspaceView();
      if (view !== undefined && view.workspace !== request.workspace) {
        // Never run unlayered when the run has a layer: the real workspace would take the writes.
        throw new RunnerError(
          "WORKSPACE_LAYER_FAILED",
          `the run's layer lies over ${view.workspace}, but this command works in ${request.workspace}; nothing was run`,
          { data: { workspace: request.workspace } },
        );
      }
      const layered = view !== undefined;
      if (layered && runAs) await adoptLayerRoot(request.workspace, runAs);
      return {
        ...(layered ? { ...enterLayer(plain, view, { nsenter, setpriv }), cwd: "/" } : plain),
        env: sandboxEnv(request.env, withNetwork),
        ...(group ? { limitReached: () => group.limitReached() } : {}),
        async dispose() {
          if (disposed) return;
          disposed = true;
          await group?.remove();
          await close?.();
          if (proxyDir !== undefined) await rm(proxyDir, { recursive: true, force: true });
        },
      };
    },
  };
}
