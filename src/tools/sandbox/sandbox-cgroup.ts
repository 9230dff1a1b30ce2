import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxLimits } from "./sandbox-settings.js";

/**
 * Totals per sandbox through cgroups: rlimits bind each process on its own (four processes of
 * 200 MiB pass a 300 MiB RLIMIT_AS), a cgroup binds all of a sandbox's processes together. Only a
 * worker running as root makes them, in what the host delegates to it: cgroup v1's memory and pids
 * hierarchies, or the cgroup v2 tree with its memory and pids controllers. Elsewhere the
 * per-process limits stay the only ones, and `doctor` says so.
 */
export type SandboxCgroups =
  | { readonly kind: "v1"; readonly memory: string; readonly pids: string }
  | { readonly kind: "v2"; readonly parent: string }
  | { readonly kind: "none"; readonly why: string };

/** What a sandbox's groups are made in, named for people (doctor, the exec tools' readiness). */
export function cgroupsDescription(cgroups: SandboxCgroups): string {
  return cgroups.kind === "none"
    ? `memory and processes bound per process only: ${cgroups.why}`
    : `memory and processes bound per sandbox (cgroup ${cgroups.kind})`;
}

const MIB = 1024 * 1024;

/**
 * This process's cgroup from `/proc/self/cgroup`: in the v1 hierarchy of `controller`, or in the
 * v2 tree (`0::/path`) when `controller` is undefined.
 */
export function ownCgroup(procSelfCgroup: string, controller?: string): string | undefined {
  for (const line of procSelfCgroup.split("\n")) {
    const [hierarchy, controllers, ...rest] = line.split(":");
    const path = rest.join(":");
    if (
      controller === undefined
        ? hierarchy === "0" && controllers === ""
        : controllers?.split(",").includes(controller)
    )
      return path;
  }
  return undefined;
}

/**
 * Where this worker can make per-sandbox cgroups: an `echo-runner` group below its own cgroup in
 * the v1 memory and pids hierarchies, or in the v2 tree (below its own, so the sandboxes stay
 * inside whatever limits the worker itself runs under).
 */
export function detectSandboxCgroups(options: { root?: string; workerUid?: number } = {}): SandboxCgroups {
  const root = options.root ?? "/sys/fs/cgroup";
  const uid = options.workerUid ?? process.getuid?.() ?? -1;
  if (uid !== 0) return { kind: "none", why: "the worker is not root, so it cannot make cgroups" };
  const self = readFileSync("/proc/self/cgroup", "utf8");
  if (existsSync(join(root, "memory", "memory.limit_in_bytes")) && existsSync(join(root, "pids"))) {
    try {
      const memory = join(root, "memory", ownCgroup(self, "memory") ?? "/", "echo-runner");
      const pids = join(root, "pids", ownCgroup(self, "pids") ?? "/", "echo-runner");
      mkdirSync(memory, { recursive: true });
      mkdirSync(pids, { recursive: true });
      return { kind: "v1", memory, pids };
    } catch (err) {
      return { kind: "none", why: `cannot make cgroups (${(err as NodeJS.ErrnoException).code ?? "error"})` };
    }
  }
  if (existsSync(join(root, "cgroup.controllers"))) return detectV2(root, ownCgroup(self) ?? "/");
  return {
    kind: "none",
    why: "neither cgroup v1 memory and pids controllers nor a cgroup v2 tree is mounted",
  };
}

const V2_CONTROLLERS = ["memory", "pids"] as const;

function words(file: string): string[] {
  return readFileSync(file, "utf8")
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
}

/**
 * cgroup v2 hands controllers down only from a group with no processes of its own (the root
 * excepted), so a worker in a delegated group (systemd `Delegate=yes`) first moves its own
 * processes into a leaf, `worker`, as systemd's delegation guide asks; the sandboxes' groups then
 * live under `echo-runner`, beside it.
 */
function detectV2(root: string, own: string): SandboxCgroups {
  const base = join(root, own);
  try {
    const offered = words(join(base, "cgroup.controllers"));
    const missing = V2_CONTROLLERS.filter((c) => !offered.includes(c));
    if (missing.length > 0) {
      return {
        kind: "none",
        why: `the worker's cgroup v2 group (${own}) is not given the ${missing.join(" and ")} controller${missing.length > 1 ? "s" : ""} (it has: ${offered.join(" ") || "none"}); delegate them to the worker (systemd: Delegate=memory pids)`,
      };
    }
    const enable = V2_CONTROLLERS.map((c) => `+${c}`).join(" ");
    if (own !== "/") {
      const leaf = join(base, "worker");
      mkdirSync(leaf, { recursive: true });
      for (const pid of words(join(base, "cgroup.procs"))) {
        try {
          writeFileSync(join(leaf, "cgroup.procs"), pid);
        } catch (err) {
          // A process that ended meanwhile has nothing to move.
          if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
        }
      }
    }
    writeFileSync(join(base, "cgroup.subtree_control"), enable);
    const parent = join(base, "echo-runner");
    mkdirSync(parent, { recursive: true });
    writeFileSync(join(parent, "cgroup.subtree_control"), enable);
    return { kind: "v2", parent };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    return { kind: "none", why: `cannot make cgroup v2 groups below ${own} (${code})` };
  }
}

/** One sandbox's cgroups: join them by writing a pid to each of `procs`. */
export interface SandboxCgroup {
  /** The `cgroup.procs` files the sandbox's first process writes its pid to. */
  readonly procs: readonly string[];
  /** Which total was reached while the sandbox ran (named with its setting), or undefined. */
  limitReached(): string | undefined;
  /** Kills what is left inside and removes the groups. */
  remove(): Promise<void>;
}

function counter(file: string, key: string): number {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${key} `));
    return line === undefined ? 0 : Number(line.slice(key.length + 1));
  } catch {
    return 0;
  }
}

function pidsIn(dir: string): number[] {
  try {
    return readFileSync(join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** Makes one sandbox's groups with its totals. */
export function createSandboxCgroup(
  cgroups: Exclude<SandboxCgroups, { kind: "none" }>,
  limits: SandboxLimits,
): SandboxCgroup {
  const name = `sbx-${randomBytes(6).toString("hex")}`;
  return cgroups.kind === "v1" ? createV1(cgroups, name, limits) : createV2(cgroups, name, limits);
}

const memoryReached = (limits: SandboxLimits) =>
  `the sandbox reached its memory limit of ${limits.memoryMb} MiB for all its processes together (tools.exec.sandbox.memory_mb)`;
const processesReached = (limits: SandboxLimits) =>
  `the sandbox reached its limit of ${limits.maxProcesses} processes (tools.exec.sandbox.max_processes)`;

/** Kills what is left in `dirs` and removes them, waiting for the kernel to let the groups go. */
async function removeGroups(dirs: readonly string[], killFile?: string): Promise<void> {
  if (killFile !== undefined && existsSync(killFile)) {
    try {
      writeFileSync(killFile, "1");
    } catch {}
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const pid of new Set(dirs.flatMap(pidsIn))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    try {
      for (const dir of dirs) if (existsSync(dir)) rmdirSync(dir);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

function createV1(
  cgroups: SandboxCgroups & { kind: "v1" },
  name: string,
  limits: SandboxLimits,
): SandboxCgroup {
  const memory = join(cgroups.memory, name);
  const pids = join(cgroups.pids, name);
  mkdirSync(memory);
  mkdirSync(pids);
  const bytes = String(limits.memoryMb * MIB);
  writeFileSync(join(memory, "memory.limit_in_bytes"), bytes);
  // With swap accounting, memory + swap is bound too, so the total cannot spill into swap.
  const memsw = join(memory, "memory.memsw.limit_in_bytes");
  if (existsSync(memsw)) writeFileSync(memsw, bytes);
  writeFileSync(join(pids, "pids.max"), String(limits.maxProcesses));
  return {
    procs: [join(memory, "cgroup.procs"), join(pids, "cgroup.procs")],
    limitReached() {
      if (counter(join(memory, "memory.oom_control"), "oom_kill") > 0) return memoryReached(limits);
      if (counter(join(pids, "pids.events"), "max") > 0) return processesReached(limits);
      return undefined;
    },
    remove: () => removeGroups([memory, pids]),
  };
}

function createV2(
  cgroups: SandboxCgroups & { kind: "v2" },
  name: string,
  limits: SandboxLimits,
): SandboxCgroup {
  const dir = join(cgroups.parent, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "memory.max"), String(limits.memoryMb * MIB));
  // Without swap the total cannot spill into it (the file exists only where swap is accounted).
  const swap = join(dir, "memory.swap.max");
  if (existsSync(swap)) writeFileSync(swap, "0");
  writeFileSync(join(dir, "pids.max"), String(limits.maxProcesses));
  return {
    procs: [join(dir, "cgroup.procs")],
    limitReached() {
      if (counter(join(dir, "memory.events"), "oom_kill") > 0) return memoryReached(limits);
      if (counter(join(dir, "pids.events"), "max") > 0) return processesReached(limits);
      return undefined;
    },
    // cgroup.kill (Linux 5.14) ends every process in the group at once, also one forking meanwhile.
    remove: () => removeGroups([dir], join(dir, "cgroup.kill")),
  };
}
