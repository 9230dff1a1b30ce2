import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  createSandboxHost,
  RunLayers,
  type SandboxHost,
  type WorkspaceView,
  withWorkspaceView,
} from "../src/tools/index.js";

/**
 * Sandbox benchmark: the start cost of a sandboxed call against a plain spawn of the same
 * program in the same run — `/usr/bin/true`, so the figure is the cost of the sandbox itself (bwrap's
 * namespaces and mounts, prlimit, and for a sandbox with network the proxy and the socat bridge).
 * Plain and sandboxed calls alternate, so both see the same machine load. Also the resident memory
 * a sandbox adds while a command runs (bwrap's own two processes; socat and the proxy when the
 * network is on). Target: p50 overhead ≤ 10 ms.
 *
 * Standalone: `node bin/run-ts.js bench/sandbox.bench.ts`.
 */

/** Options for {@link runSandboxBench}. */
export interface SandboxBenchOptions {
  /** Calls of each kind. Default 200 (network sandboxes: a quarter of it). */
  calls?: number;
}

interface Percentiles {
  p50: number;
  p99: number;
}

/** What {@link runSandboxBench} measured; times in ms, memory in KiB. */
export interface SandboxBenchResult {
  calls: number;
  plain: Percentiles;
  sandboxed: Percentiles;
  /** sandboxed − plain at the same percentile. */
  overhead: Percentiles;
  /** A sandbox with the filtering proxy and socat bridge (network allow). */
  withNetwork: { calls: number; sandboxed: Percentiles; overhead: Percentiles };
  /**
   * A sandboxed call inside a run's workspace layer (nsenter into its namespace first) against the
   * same call without one, alternating; and what opening a run's layer costs (once per attempt).
   */
  withLayer: {
    calls: number;
    without: Percentiles;
    layered: Percentiles;
    overhead: Percentiles;
    openMs: Percentiles;
  };
  /** Resident memory of the sandbox's own processes while a command runs (no network / network). */
  memoryKiB: { sandbox: number; sandboxWithNetwork: number };
  targetOverheadMs: number;
  withinTarget: boolean;
}

const TARGET_OVERHEAD_MS = 10;

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

function runOnce(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  uid?: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env,
      stdio: "ignore",
      ...(uid === undefined ? {} : { uid, gid: uid }),
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

async function timedPlain(): Promise<number> {
  const t = performance.now();
  await runOnce("/usr/bin/true", [], { PATH: "/usr/bin" });
  return performance.now() - t;
}

async function timedSandboxed(host: SandboxHost, workspace: string): Promise<number> {
  const t = performance.now();
  const launch = await host.prepare({
    workspace,
    cwd: workspace,
    env: { PATH: "/usr/bin" },
    command: ["/usr/bin/true"],
  });
  try {
    await runOnce(launch.file, launch.args, launch.env, launch.uid);
  } finally {
    await launch.dispose();
  }
  return performance.now() - t;
}

async function timedLayered(host: SandboxHost, workspace: string, view: WorkspaceView): Promise<number> {
  return withWorkspaceView(view, () => timedSandboxed(host, workspace));
}

/** A sandboxed call with and without a layer, alternating, and the cost of opening fresh layers. */
async function benchLayer(
  host: SandboxHost,
  workspace: string,
  calls: number,
): Promise<SandboxBenchResult["withLayer"]> {
  const dir = await mkdtemp(join(tmpdir(), "echo-bench-layers-"));
  const layers = new RunLayers({ dir });
  try {
    const opens: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await layers.enter(`open-${i}`, `open-${i}`, workspace);
      opens.push(performance.now() - t);
      await layers.release(`open-${i}`);
    }
    const view = await layers.enter("bench", "bench", workspace);
    for (let i = 0; i < 5; i++) await timedLayered(host, workspace, view);
    const without: number[] = [];
    const layered: number[] = [];
    for (let i = 0; i < calls; i++) {
      without.push(await timedSandboxed(host, workspace));
      layered.push(await timedLayered(host, workspace, view));
    }
    const w = percentiles(without);
    const l = percentiles(layered);
    return {
      calls,
      without: w,
      layered: l,
      overhead: { p50: l.p50 - w.p50, p99: l.p99 - w.p99 },
      openMs: percentiles(opens),
    };
  } finally {
    await layers.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Descendants of `root` (pids), read from /proc. */
async function descendants(root: number): Promise<number[]> {
  const parent = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    parent.set(Number(entry), ppid);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [child, p] of parent) {
      if (p === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return out;
}

/** RSS of a running sandbox's own processes (everything but the `sleep` it runs). */
async function sandboxMemory(host: SandboxHost, workspace: string): Promise<number> {
  const launch = await host.prepare({
    workspace,
    cwd: workspace,
    env: { PATH: "/usr/bin" },
    command: ["/usr/bin/sleep", "3"],
  });
  const child = spawn(launch.file, launch.args, {
    env: launch.env,
    stdio: "ignore",
    ...(launch.uid === undefined ? {} : { uid: launch.uid, gid: launch.uid }),
  });
  try {
    await new Promise((r) => setTimeout(r, 800));
    const pids = [child.pid ?? 0, ...(await descendants(child.pid ?? 0))];
    let total = 0;
    for (const pid of pids) {
      const comm = (await readFile(`/proc/${pid}/comm`, "utf8").catch(() => "")).trim();
      if (comm !== "sleep") total += await rssKiB(pid);
    }
    return total;
  } finally {
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    await launch.dispose();
  }
}

/** Measures the sandbox's start cost and memory against plain spawns in the same run. */
export async function runSandboxBench(options: SandboxBenchOptions = {}): Promise<SandboxBenchResult> {
  const calls = options.calls ?? 200;
  const workspace = await realpath(await mkdtemp(join(tmpdir(), "echo-bench-sbx-")));
  const offline = createSandboxHost({ network: "deny" });
  const online = createSandboxHost({
    network: "allow",
    egress: {
      checkUrl: async (url) => ({
        verdict: "deny",
        reason: "bench",
        host: new URL(url).hostname,
        connectTo: [],
      }),
      lookup: async () => [],
      hostPolicy: () => undefined,
      allowedHosts: [],
    },
  });
  for (const host of [offline, online]) {
    const ready = host.readiness();
    if (!ready.ready) throw new Error(ready.detail);
  }
  try {
    // Warm-up: page cache, the first bwrap and the proxy code paths.
    for (let i = 0; i < 10; i++) {
      await timedPlain();
      await timedSandboxed(offline, workspace);
    }
    const plain: number[] = [];
    const sandboxed: number[] = [];
    for (let i = 0; i < calls; i++) {
      plain.push(await timedPlain());
      sandboxed.push(await timedSandboxed(offline, workspace));
    }
    const networkCalls = Math.max(10, Math.floor(calls / 4));
    const plainForNetwork: number[] = [];
    const networked: number[] = [];
    for (let i = 0; i < networkCalls; i++) {
      plainForNetwork.push(await timedPlain());
      networked.push(await timedSandboxed(online, workspace));
    }
    const withLayer = await benchLayer(offline, workspace, Math.max(10, Math.floor(calls / 2)));
    const p = percentiles(plain);
    const s = percentiles(sandboxed);
    const pn = percentiles(plainForNetwork);
    const n = percentiles(networked);
    const overhead = { p50: s.p50 - p.p50, p99: s.p99 - p.p99 };
    return {
      calls,
      plain: p,
      sandboxed: s,
      overhead,
      withNetwork: {
        calls: networkCalls,
        sandboxed: n,
        overhead: { p50: n.p50 - pn.p50, p99: n.p99 - pn.p99 },
      },
      withLayer,
      memoryKiB: {
        sandbox: await sandboxMemory(offline, workspace),
        sandboxWithNetwork: await sandboxMemory(online, workspace),
      },
      targetOverheadMs: TARGET_OVERHEAD_MS,
      withinTarget: overhead.p50 <= TARGET_OVERHEAD_MS,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** Renders a {@link SandboxBenchResult} for a person. */
export function formatSandboxBench(r: SandboxBenchResult): string {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  return [
    `sandbox: start cost of /usr/bin/true over ${r.calls} calls each, alternating — plain spawn p50 ${ms(r.plain.p50)} p99 ${ms(r.plain.p99)}; bubblewrap sandbox p50 ${ms(r.sandboxed.p50)} p99 ${ms(r.sandboxed.p99)}; overhead p50 ${ms(r.overhead.p50)} p99 ${ms(r.overhead.p99)}; target p50 overhead ≤ ${r.targetOverheadMs} ms: ${r.withinTarget ? "met" : "MISSED"}`,
    `  with network (filtering proxy + socat bridge, ${r.withNetwork.calls} calls): p50 ${ms(r.withNetwork.sandboxed.p50)} p99 ${ms(r.withNetwork.sandboxed.p99)}; overhead p50 ${ms(r.withNetwork.overhead.p50)} p99 ${ms(r.withNetwork.overhead.p99)}`,
    `  in a run's workspace layer (${r.withLayer.calls} calls each, alternating): without p50 ${ms(r.withLayer.without.p50)}, layered p50 ${ms(r.withLayer.layered.p50)} p99 ${ms(r.withLayer.layered.p99)} (${(r.withLayer.layered.p50 / r.withLayer.without.p50).toFixed(2)}×, +${ms(r.withLayer.overhead.p50)}); opening a run's layer p50 ${ms(r.withLayer.openMs.p50)} p99 ${ms(r.withLayer.openMs.p99)} (once per attempt)`,
    `  memory of a running sandbox's own processes: ${r.memoryKiB.sandbox} KiB without network, ${r.memoryKiB.sandboxWithNetwork} KiB with the socat bridge`,
  ].join("\n");
}

// Deferred, so a runner that imports this module can set ECHO_BENCH_RUNNER first.
setImmediate(() => {
  if (process.env.ECHO_BENCH_RUNNER === "1") return;
  runSandboxBench()
    .then((r) => console.log(formatSandboxBench(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
});
