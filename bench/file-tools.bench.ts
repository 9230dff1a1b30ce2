import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { withHeldEntry } from "../src/tools/beneath/held-entry.js";
import { withWorkspaceView } from "../src/tools/beneath/workspace-view.js";
import { atomicWriteFile } from "../src/tools/files/atomic-write.js";
import { readTextAt, readTextFile } from "../src/tools/files/text-file.js";
import { readChangeSet } from "../src/tools/layer/change-set.js";
import { landChangeSet } from "../src/tools/layer/land-change-set.js";
import { RunLayers } from "../src/tools/layer/run-layers.js";
import { runStandalone } from "./standalone.js";

/**
 * File tools by descriptor: what holding each folder of the checked real path
 * costs against opening the path by name, as the tools did. Both sides read (or write) the same
 * 4 KiB file at the same depth, alternating call by call so both see the same machine load.
 * Target: p50 overhead ≤ 2 ms on the host path.
 *
 * Standalone: `node bin/run-ts.js bench/file-tools.bench.ts`.
 */

interface Percentiles {
  p50: number;
  p99: number;
}

/** What {@link runFileToolsBench} measured; times in µs. */
export interface FileToolsBenchResult {
  calls: number;
  /** Components of the file's real path (the walk's length). */
  depth: number;
  read: { byName: Percentiles; byDescriptor: Percentiles; overhead: Percentiles };
  write: { byName: Percentiles; byDescriptor: Percentiles; overhead: Percentiles };
  /** The same read by descriptor on the host path and through a run's layer (its namespace root), µs. */
  layered: { host: Percentiles; layered: Percentiles; overhead: Percentiles };
  /** A layer of 1,000 changed files (4 KiB each, 20 folders): reading its change set and landing it, ms. */
  landing: { files: number; readMs: number; landMs: number; copyMs: number; targetMs: number };
  targetOverheadUs: number;
  withinTarget: boolean;
}

const TARGET_OVERHEAD_US = 2000;

function percentiles(samples: number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) * 1000;
}

function compare(byName: number[], byDescriptor: number[]) {
  const a = percentiles(byName);
  const b = percentiles(byDescriptor);
  return { byName: a, byDescriptor: b, overhead: { p50: b.p50 - a.p50, p99: b.p99 - a.p99 } };
}

export async function runFileToolsBench(options: { calls?: number } = {}): Promise<FileToolsBenchResult> {
  const calls = options.calls ?? 5_000;
  const ws = await realpath(await mkdtemp(join(tmpdir(), "echo-bench-files-")));
  try {
    const file = join(ws, "src", "module", "lib", "file.ts");
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, "x".repeat(4096));
    const reads = { name: [] as number[], fd: [] as number[] };
    const writes = { name: [] as number[], fd: [] as number[] };
    for (let i = 0; i < calls; i++) {
      reads.name.push(await timed(() => readTextFile(file, 1 << 20)));
      reads.fd.push(await timed(() => readTextAt(file, 1 << 20)));
      const content = `v${i}\n`;
      const named = join(ws, "out", "by-name.txt");
      writes.name.push(
        await timed(async () => {
          await mkdir(dirname(named), { recursive: true });
          await atomicWriteFile(named, content);
        }),
      );
      writes.fd.push(
        await timed(() =>
          withHeldEntry(join(ws, "out", "by-fd.txt"), { createParents: true }, (entry) =>
            atomicWriteFile(entry.at, content),
          ),
        ),
      );
    }
    const read = compare(reads.name, reads.fd);
    const write = compare(writes.name, writes.fd);
    const layered = await benchLayeredRead(ws, file, Math.max(200, Math.floor(calls / 5)));
    const landing = await benchLanding(ws);
    return {
      calls,
      depth: file.split("/").length - 1,
      read,
      write,
      layered,
      landing,
      targetOverheadUs: TARGET_OVERHEAD_US,
      withinTarget: read.overhead.p50 <= TARGET_OVERHEAD_US && write.overhead.p50 <= TARGET_OVERHEAD_US,
    };
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}

/** A read by descriptor on the host path against the same read through a run's layer, alternating. */
async function benchLayeredRead(
  ws: string,
  file: string,
  calls: number,
): Promise<FileToolsBenchResult["layered"]> {
  const dir = await mkdtemp(join(tmpdir(), "echo-bench-file-layers-"));
  const layers = new RunLayers({ dir });
  try {
    const view = await layers.enter("bench", "bench", ws);
    const host: number[] = [];
    const inLayer: number[] = [];
    for (let i = 0; i < calls; i++) {
      host.push(await timed(() => readTextAt(file, 1 << 20)));
      inLayer.push(await timed(() => withWorkspaceView(view, () => readTextAt(file, 1 << 20))));
    }
    const c = compare(host, inLayer);
    return { host: c.byName, layered: c.byDescriptor, overhead: c.overhead };
  } finally {
    await layers.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Landing 1,000 changed files: an upper folder as overlayfs leaves it (no mount needed for new
 * files) over an empty workspace. The baseline is `cp -r` of the same files in the same run.
 */
async function benchLanding(root: string): Promise<FileToolsBenchResult["landing"]> {
  const files = 1_000;
  const upper = join(root, "upper");
  const workspace = join(root, "landed");
  const copied = join(root, "copied");
  await mkdir(workspace, { recursive: true });
  for (let i = 0; i < files; i++) {
    const dir = join(upper, `d${i % 20}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `f${i}.txt`), "y".repeat(4096));
  }
  let start = performance.now();
  const set = await readChangeSet(upper, workspace);
  const readMs = performance.now() - start;
  start = performance.now();
  await landChangeSet(set, { upper, workspace, recordDir: root });
  const landMs = performance.now() - start;
  start = performance.now();
  const { execFileSync } = await import("node:child_process");
  execFileSync("cp", ["-r", upper, copied]);
  const copyMs = performance.now() - start;
  return { files, readMs, landMs, copyMs, targetMs: 1000 };
}

const us = (n: number) => `${Math.round(n)} µs`;

export function formatFileToolsBench(r: FileToolsBenchResult): string {
  const line = (what: string, c: FileToolsBenchResult["read"]) =>
    `  ${what}: by name p50 ${us(c.byName.p50)} p99 ${us(c.byName.p99)}; by descriptor p50 ${us(c.byDescriptor.p50)} p99 ${us(c.byDescriptor.p99)}; overhead p50 ${us(c.overhead.p50)} (${(c.byDescriptor.p50 / c.byName.p50).toFixed(2)}×)`;
  return [
    `file tools by descriptor (${r.calls} calls each, alternating; a file ${r.depth} components deep):`,
    line("read_file's read", r.read),
    line("write_file's write", r.write),
    `  target: p50 overhead ≤ ${us(r.targetOverheadUs)}: ${r.withinTarget ? "met" : "MISSED"}`,
    `  read_file's read in a run's layer: host path p50 ${us(r.layered.host.p50)}, through the layer p50 ${us(r.layered.layered.p50)} p99 ${us(r.layered.layered.p99)} (${(r.layered.layered.p50 / r.layered.host.p50).toFixed(2)}×, +${us(r.layered.overhead.p50)})`,
    `  landing ${r.landing.files} changed files: change set read in ${Math.round(r.landing.readMs)} ms, landed in ${Math.round(r.landing.landMs)} ms (cp -r of the same files: ${Math.round(r.landing.copyMs)} ms, ${(r.landing.landMs / r.landing.copyMs).toFixed(1)}×); target ≤ ${r.landing.targetMs} ms for both: ${r.landing.readMs + r.landing.landMs <= r.landing.targetMs ? "met" : "MISSED"}`,
  ].join("\n");
}

runStandalone("file tools", async () => formatFileToolsBench(await runFileToolsBench()));
