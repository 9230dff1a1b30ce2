import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxLimits } from "./sandbox-settings.js";

/**
 * Totals per sandbox through cgroups: rlimits bind each process on its own (four processes of
 * 200 MiB pass a 300 MiB RLIMIT_AS), a cgroup binds all of a sandbox's processes together. Only a
 * worker running as root can make them, and only cgroup v1's memory and pids controllers are
 * supported for now (what these machines delegate); elsewhere the per-process limits stay the
 * only ones, and `doctor` says so.
 */
export type SandboxCgroups =
  | { readonly kind: "v1"; readonly memory: string; readonly pids: string }
  | { readonly kind: "none"; readonly why: string };

const MIB = 1024 * 1024;

/** The path of this process's cgroup in a v1 hierarchy (`/proc/self/cgroup`), or undefined. */
function ownCgroup(controller: string): string | undefined {
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, controllers, path] = line.split(":");
    if (controllers?.split(",").includes(controller)) return path;
  }
  return undefined;
}

/**
 * Where this worker can make per-sandbox cgroups: an `echo-runner` group below its own cgroup in
 * the v1 memory and pids hierarchies (below its own, so the sandboxes stay inside whatever limits
 * the worker itself runs under).
 */
export function detectSandboxCgroups(options: { root?: string; workerUid?: number } = {}): SandboxCgroups {
  const root = options.root ?? "/sys/fs/cgroup";
  const uid = options.workerUid ?? process.getuid?.() ?? -1;
  if (uid !== 0) return { kind: "none", why: "the worker is not root, so it cannot make cgroups" };
  if (!existsSync(join(root, "memory", "memory.limit_in_bytes")) || !existsSync(join(root, "pids"))) {
    return {
      kind: "none",
      why: existsSync(join(root, "cgroup.controllers"))
        ? "the host has cgroup v2 only, which the sandbox does not use yet"
        : "no cgroup v1 memory and pids controllers are mounted",
    };
  }
  try {
    const memory = join(root, "memory", ownCgroup("memory") ?? "/", "echo-runner");
    const pids = join(root, "pids", ownCgroup("pids") ?? "/", "echo-runner");
    mkdirSync(memory, { recursive: true });
    mkdirSync(pids, { recursive: true });
    return { kind: "v1", memory, pids };
  } catch (err) {
    return { kind: "none", why: `cannot make cgroups (${(err as NodeJS.ErrnoException).code ?? "error"})` };
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

/** Makes one sandbox's memory and pids groups with its totals. */
export function createSandboxCgroup(
  cgroups: SandboxCgroups & { kind: "v1" },
  limits: SandboxLimits,
): SandboxCgroup {
  const name = `sbx-${randomBytes(6).toString("hex")}`;
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
      if (counter(join(memory, "memory.oom_control"), "oom_kill") > 0)
        return `the sandbox reached its memory limit of ${limits.memoryMb} MiB for all its processes together (tools.exec.sandbox.memory_mb)`;
      if (counter(join(pids, "pids.events"), "max") > 0)
        return `the sandbox reached its limit of ${limits.maxProcesses} processes (tools.exec.sandbox.max_processes)`;
      return undefined;
    },
    async remove() {
      for (let attempt = 0; attempt < 50; attempt++) {
        const left = [...new Set([...pidsIn(memory), ...pidsIn(pids)])];
        for (const pid of left) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {}
        }
        try {
          if (existsSync(memory)) rmdirSync(memory);
          if (existsSync(pids)) rmdirSync(pids);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    },
  };
}
