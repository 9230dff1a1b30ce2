import type { SandboxLimits } from "./sandbox-settings.js";
import type { SandboxMount } from "./system-mounts.js";

/** Where the filtering proxy's socket appears inside the sandbox. */
export const SANDBOX_PROXY_DIR = "/run/echo-proxy";
/** The socket's file name, in {@link SANDBOX_PROXY_DIR} inside and in the per-call dir outside. */
export const SANDBOX_PROXY_SOCKET = "proxy.sock";
/** The port socat listens on inside the sandbox's own loopback; the proxy env vars point at it. */
export const SANDBOX_PROXY_PORT = 3128;
/** PATH inside the sandbox: system directories only. */
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
/** Where execute_code's source directory appears inside the sandbox (read-only). */
export const SANDBOX_CODE_DIR = "/run/echo-code";

/** Everything one sandboxed call is made of. */
export interface BwrapPlan {
  /** The read-only system (from resolveSystemMounts). */
  readonly system: readonly SandboxMount[];
  /** Real path of the workspace: the only writable path, mounted at the same path. */
  readonly workspace: string;
  /** Real path of the working directory (inside the workspace). */
  readonly cwd: string;
  /** Uid and gid inside the sandbox. */
  readonly uid: number;
  readonly gid: number;
  readonly limits: SandboxLimits;
  /** Directory holding the proxy's socket outside; without it the sandbox has no network at all. */
  readonly proxyDir?: string;
  /** A directory mounted read-only at {@link SANDBOX_CODE_DIR} (execute_code's source). */
  readonly codeDir?: string;
  /** socat's path (inside = outside, under /usr), needed only with a proxy. */
  readonly socat?: string;
  /** prlimit's path (under /usr). */
  readonly prlimit: string;
  /** bash's path (under /usr): runs the proxy bridge before the command. */
  readonly bash: string;
  /** The program and its arguments, run inside. */
  readonly command: readonly [string, ...string[]];
  /** A descriptor bwrap reads the seccomp filter from (see {@link sandboxSeccompLaunch}). */
  readonly seccompFd?: number;
}

/** The descriptor the seccomp filter is passed to bwrap on. */
export const SECCOMP_FD = 3;

/**
 * How bwrap is started with its seccomp filter on {@link SECCOMP_FD}: through /bin/sh, which opens
 * the filter file on that descriptor and execs bwrap (same pid, same parent: --die-with-parent
 * still watches the worker). The file path and every bwrap argument are positional parameters,
 * never part of the script.
 */
export function sandboxSeccompLaunch(
  sh: string,
  filterPath: string,
  bwrap: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return { file: sh, args: ["-c", `exec "$@" ${SECCOMP_FD}<"$0"`, filterPath, bwrap, ...args] };
}

/**
 * The same with the sandbox's cgroups: the shell starts as root, writes its own pid into each
 * `cgroup.procs` (so bwrap and everything it starts are counted from the first instruction), then
 * execs setpriv, which drops to the sandbox's uid and gid, with no supplementary groups, before
 * bwrap. A shell that cannot join the groups exits 125 and nothing runs.
 */
export function sandboxCgroupLaunch(
  sh: string,
  procs: readonly string[],
  filterPath: string,
  setpriv: string,
  identity: { uid: number; gid: number },
  bwrap: string,
  args: readonly string[],
): { file: string; args: string[] } {
  const join = procs.map((_, i) => `echo $$ > "$${i + 1}"`).join(" && ");
  const script = `${join} || exit 125; f=$${procs.length + 1}; shift ${procs.length + 1}; exec "$@" ${SECCOMP_FD}<"$f"`;
  return {
    file: sh,
    args: [
      "-c",
      script,
      "sandbox",
      ...procs,
      filterPath,
      setpriv,
      `--reuid=${identity.uid}`,
      `--regid=${identity.gid}`,
      "--clear-groups",
      bwrap,
      ...args,
    ],
  };
}

const MIB = 1024 * 1024;

function mountArgs(mount: SandboxMount): string[] {
  switch (mount.kind) {
    case "ro-bind":
      return ["--ro-bind", mount.source, mount.dest];
    case "bind":
      return ["--bind", mount.source, mount.dest];
    case "symlink":
      return ["--symlink", mount.target, mount.dest];
  }
}

/**
 * The prlimit prefix that applies the limits inside the sandbox (soft = hard, so nothing inside can
 * raise them back). RLIMIT_NPROC counts per user in the sandbox's own user namespace.
 */
export function limitArgs(prlimit: string, limits: SandboxLimits): string[] {
  return [
    prlimit,
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryMb * MIB}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.fileSizeMb * MIB}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
  ];
}

// Starts socat on the sandbox's own loopback, bridged to the proxy's socket, waits (bounded) until
// it listens, then becomes the command. The port is in /proc/net/tcp as hex 0C38 state 0A (LISTEN).
const BRIDGE_SCRIPT = `"$ECHO_SOCAT" TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${SANDBOX_PROXY_DIR}/${SANDBOX_PROXY_SOCKET} </dev/null >/dev/null 2>&1 &
unset ECHO_SOCAT
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  grep -q ':${SANDBOX_PROXY_PORT.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A' /proc/net/tcp && break
  sleep 0.01
done
exec "$@"`;

/**
 * bwrap's arguments for one call: new user (every capability dropped, no nested user namespaces),
 * PID, IPC, UTS, cgroup and network namespaces; the system read-only; the workspace the only
 * writable path; a private tmpfs /tmp; a minimal /dev; its own /proc; killed with its parent; a new
 * session (no TIOCSTI into the worker's terminal); with `seccompFd`, the seccomp filter. The command runs under the limits, and, with a
 * proxy, behind the socat bridge to it.
 */
export function buildBwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--uid",
    String(plan.uid),
    "--gid",
    String(plan.gid),
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--hostname",
    "sandbox",
  ];
  if (plan.seccompFd !== undefined) args.push("--seccomp", String(plan.seccompFd));
  for (const mount of plan.system) args.push(...mountArgs(mount));
  args.push("--proc", "/proc", "--dev", "/dev");
  args.push("--size", String(plan.limits.tmpMb * MIB), "--tmpfs", "/tmp");
  args.push("--bind", plan.workspace, plan.workspace);
  if (plan.codeDir !== undefined) args.push("--ro-bind", plan.codeDir, SANDBOX_CODE_DIR);
  if (plan.proxyDir !== undefined) args.push("--ro-bind", plan.proxyDir, SANDBOX_PROXY_DIR);
  // The root bwrap builds (where /etc's entries and mount points live) is read-only too.
  args.push("--remount-ro", "/");
  args.push("--chdir", plan.cwd, "--");
  args.push(...limitArgs(plan.prlimit, plan.limits));
  if (plan.proxyDir !== undefined) {
    if (plan.socat === undefined) throw new Error("a sandbox with a proxy needs socat");
    args.push(
      "/usr/bin/env",
      `ECHO_SOCAT=${plan.socat}`,
      plan.bash,
      "--noprofile",
      "--norc",
      "-c",
      BRIDGE_SCRIPT,
      "bridge",
    );
  }
  args.push(...plan.command);
  return args;
}

/** The proxy variables set inside a sandbox with a proxy (every common spelling). */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
  };
}
