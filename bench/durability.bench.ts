import { startRedisServer } from "../test/helpers/redis-server.js";
import { type AgentCallProfile, type AgentThroughputFigure, runAgentBench } from "./agent.bench.js";

/**
 * What durability costs: agent tool calls/s and CPU per call on a Redis with
 * `appendfsync always` (the embedded Redis's setting: an acknowledged claim is on disk) against the
 * same on `appendfsync everysec`, and each against raw BullMQ no-op jobs on the same server. Both
 * servers run in this process's run, one after the other, so the machine's load is shared. Target:
 * the strict setting keeps ≥ 0.8 of the everysec throughput at concurrency 10 and 50, and a run waits
 * for at most 3 Redis round trips per tool call (counted on the strict server, see AgentCallProfile).
 *
 * Standalone: `node bin/run-ts.js bench/durability.bench.ts`.
 */

/** One concurrency on both settings. */
export interface DurabilityFigure {
  concurrency: number;
  always: AgentThroughputFigure;
  everysec: AgentThroughputFigure;
  /** always.toolCallsPerSec / everysec.toolCallsPerSec. */
  ratio: number;
}

export interface DurabilityBenchResult {
  figures: DurabilityFigure[];
  targetRatio: number;
  /** One run's Redis traffic per tool call on the `always` server. */
  profile: AgentCallProfile;
  targetRoundTrips: number;
  met: boolean;
}

const TARGET_RATIO = 0.8;
const TARGET_ROUND_TRIPS = 3;

// Run standalone, this module prints its own report; the agent bench it uses must not print its own.
const STANDALONE = process.env.ECHO_BENCH_RUNNER !== "1";
process.env.ECHO_BENCH_RUNNER = "1";

async function onServer(appendfsync: "always" | "everysec", concurrencies: readonly number[]) {
  const server = await startRedisServer({ appendfsync });
  try {
    return await runAgentBench({ redisUrl: server.url, concurrencies, rounds: 2, clusterConcurrency: null });
  } finally {
    await server.stop();
  }
}

export async function runDurabilityBench(
  options: { concurrencies?: readonly number[] } = {},
): Promise<DurabilityBenchResult> {
  const concurrencies = options.concurrencies ?? [10, 50];
  const everysec = (await onServer("everysec", concurrencies)).throughput;
  const strict = await onServer("always", concurrencies);
  const always = strict.throughput;
  const figures = concurrencies.map((concurrency) => {
    const a = always.find((f) => f.concurrency === concurrency) as AgentThroughputFigure;
    const e = everysec.find((f) => f.concurrency === concurrency) as AgentThroughputFigure;
    return { concurrency, always: a, everysec: e, ratio: a.toolCallsPerSec / e.toolCallsPerSec };
  });
  const profile = strict.profile;
  return {
    figures,
    targetRatio: TARGET_RATIO,
    profile,
    targetRoundTrips: TARGET_ROUND_TRIPS,
    met: figures.every((f) => f.ratio >= TARGET_RATIO) && profile.runRoundTripsPerCall <= TARGET_ROUND_TRIPS,
  };
}

export function formatDurabilityBench(r: DurabilityBenchResult): string {
  const lines = r.figures.map(
    (f) =>
      `  concurrency ${f.concurrency}: always ${f.always.toolCallsPerSec.toFixed(0)} calls/s (${f.always.cpuUsPerCall.toFixed(0)} µs CPU each; raw BullMQ ${f.always.baselineJobsPerSec.toFixed(0)} jobs/s, ${f.always.ratio.toFixed(2)}×) vs everysec ${f.everysec.toolCallsPerSec.toFixed(0)} calls/s (${f.everysec.cpuUsPerCall.toFixed(0)} µs; raw ${f.everysec.baselineJobsPerSec.toFixed(0)} jobs/s, ${f.everysec.ratio.toFixed(2)}×): strict keeps ${f.ratio.toFixed(2)} of everysec`,
  );
  const p = r.profile;
  return [
    `durability: agent tool calls on appendfsync always against everysec (same run); target ≥ ${r.targetRatio} at each and ≤ ${r.targetRoundTrips} round trips per call: ${r.met ? "met" : "MISSED"}`,
    ...lines,
    `  per tool call (always): ${p.runRoundTripsPerCall.toFixed(2)} round trips the run waits for, ` +
      `${p.runCommandsPerCall.toFixed(2)} commands (${Object.entries(p.commandsPerCall)
        .filter(([label]) => label.startsWith("run "))
        .map(([label, n]) => `${label.slice(4)} ${n.toFixed(2)}`)
        .join(", ")})`,
  ].join("\n");
}

setImmediate(() => {
  if (!STANDALONE) return;
  runDurabilityBench()
    .then((r) => console.log(formatDurabilityBench(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
});
