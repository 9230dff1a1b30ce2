import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { runStandalone } from "./standalone.js";

/**
 * Start-up benchmark: wall time and peak memory of `echo-runner --help` and
 * `echo-runner guard command 'ls' --json` (the compiled CLI, bin/echo-runner.js) against `node -e 0`
 * in the same run, rounds interleaved so a busy moment hits all three alike. Medians over the rounds.
 * Targets: `--help` ≤ 5× `node -e 0`; `guard command` ≤ 400 ms p50 and ≤ 100 MB peak.
 *
 * Standalone: `node bin/run-ts.js bench/startup.bench.ts`.
 */

const ROOT = resolve(import.meta.dirname, "..");
const BIN = resolve(ROOT, "bin/echo-runner.js");
/** GNU time reports the child's peak RSS; without it only wall times are reported. */
const GNU_TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

/** Options for {@link runStartupBench}. */
export interface StartupBenchOptions {
  /** Rounds (each starts every command once). Default 7. */
  rounds?: number;
}

/** One command's figures: medians over the rounds. */
export interface StartupFigure {
  command: string;
  wallMsP50: number;
  wallMsMax: number;
  /** Peak resident set (MB, median), or null without /usr/bin/time. */
  peakMb: number | null;
  /** wallMsP50 / the baseline's wallMsP50. */
  ratioToNode: number;
}

/** What {@link runStartupBench} measured. */
export interface StartupBenchResult {
  rounds: number;
  baseline: StartupFigure;
  help: StartupFigure;
  guardCommand: StartupFigure;
  targets: { helpRatioMax: number; guardWallMsP50Max: number; guardPeakMbMax: number };
  withinTargets: { help: boolean; guardWall: boolean; guardPeak: boolean };
}

async function once(args: string[]): Promise<{ ms: number; peakKb: number | null }> {
  const [file, argv] = GNU_TIME
    ? [GNU_TIME, ["-f", "peak-kb %M", process.execPath, ...args]]
    : [process.execPath, args];
  const started = performance.now();
  const child = spawn(file, argv, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.once("exit", (c) => done(c)));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited ${code}: ${stderr.slice(0, 500)}`);
  const peak = /peak-kb (\d+)/.exec(stderr)?.[1];
  return { ms, peakKb: peak ? Number(peak) : null };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export async function runStartupBench(options: StartupBenchOptions = {}): Promise<StartupBenchResult> {
  const rounds = options.rounds ?? 7;
  // What is measured is the compiled CLI: build it first if a source is newer.
  const built = spawnSync(process.execPath, [resolve(ROOT, "scripts/build.mjs"), "--if-stale"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (built.status !== 0) throw new Error("scripts/build.mjs --if-stale failed");
  const commands = {
    baseline: ["-e", "0"],
    help: [BIN, "--help"],
    guardCommand: [BIN, "guard", "command", "ls", "--json"],
  } as const;
  const samples = { baseline: [], help: [], guardCommand: [] } as Record<
    keyof typeof commands,
    { ms: number; peakKb: number | null }[]
  >;
  // One unmeasured start each: the first start of the run pays for the page cache.
  for (const args of Object.values(commands)) await once([...args]);
  for (let round = 0; round < rounds; round++) {
    for (const key of Object.keys(commands) as (keyof typeof commands)[]) {
      samples[key].push(await once([...commands[key]]));
    }
  }
  const base = median(samples.baseline.map((s) => s.ms));
  const figure = (key: keyof typeof commands, label: string): StartupFigure => {
    const wall = samples[key].map((s) => s.ms);
    const peaks = samples[key].map((s) => s.peakKb).filter((kb): kb is number => kb !== null);
    return {
      command: label,
      wallMsP50: median(wall),
      wallMsMax: Math.max(...wall),
      peakMb: peaks.length > 0 ? median(peaks) / 1024 : null,
      ratioToNode: median(wall) / base,
    };
  };
  const help = figure("help", "echo-runner --help");
  const guardCommand = figure("guardCommand", "echo-runner guard command 'ls' --json");
  const targets = { helpRatioMax: 5, guardWallMsP50Max: 400, guardPeakMbMax: 100 };
  return {
    rounds,
    baseline: figure("baseline", "node -e 0"),
    help,
    guardCommand,
    targets,
    withinTargets: {
      help: help.ratioToNode <= targets.helpRatioMax,
      guardWall: guardCommand.wallMsP50 <= targets.guardWallMsP50Max,
      guardPeak: guardCommand.peakMb !== null && guardCommand.peakMb <= targets.guardPeakMbMax,
    },
  };
}

export function formatStartupBench(r: StartupBenchResult): string {
  const line = (f: StartupFigure) =>
    `  ${f.command.padEnd(40)} p50 ${f.wallMsP50.toFixed(0).padStart(5)} ms  max ${f.wallMsMax.toFixed(0).padStart(5)} ms  ` +
    `peak ${f.peakMb === null ? "  n/a" : `${f.peakMb.toFixed(0).padStart(3)} MB`}  ${f.ratioToNode.toFixed(1)}x node -e 0`;
  const mark = (ok: boolean) => (ok ? "met" : "MISSED");
  return [
    `start-up (compiled CLI; ${r.rounds} interleaved rounds, medians)`,
    line(r.baseline),
    line(r.help),
    line(r.guardCommand),
    `  targets: --help <= ${r.targets.helpRatioMax}x node -e 0: ${mark(r.withinTargets.help)}; ` +
      `guard command p50 <= ${r.targets.guardWallMsP50Max} ms: ${mark(r.withinTargets.guardWall)}; ` +
      `peak <= ${r.targets.guardPeakMbMax} MB: ${mark(r.withinTargets.guardPeak)}`,
  ].join("\n");
}

runStandalone("start-up", async () => formatStartupBench(await runStartupBench()));
