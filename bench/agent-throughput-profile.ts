import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { Redis } from "ioredis";
import { createRedisConnection, enqueueAgentRun } from "../src/queue/index.js";
import { startAgentWorker } from "../src/runtime/parts/agent-worker.js";
import { agentQueue, testPayload, testRunDeps } from "../test/helpers/agent-harness.js";
import { startRedisServer } from "../test/helpers/redis-server.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { noopReadTool, readFilesScript } from "./agent-workload.js";

/**
 * CPU profile of the worker path of agent tool calls: the agent side of
 * bench/agent.bench.ts alone (same no-op read_file, same scripted model, same worker), warmed up,
 * then one measured round under the V8 sampling profiler (100 µs), so the profile holds tool calls
 * only — no start-up, no raw BullMQ side. Prints calls/s, CPU µs per call and the top self time;
 * writes the .cpuprofile for Chrome DevTools or speedscope.
 *
 *   node bin/run-ts.js bench/agent-throughput-profile.ts [concurrency=10] [runs=200] [out=agent.cpuprofile]
 */

const CALLS_PER_RUN = 20;
const [concurrency = 10, runs = 200] = process.argv.slice(2, 4).map(Number);
const out = process.argv[4] ?? "agent.cpuprofile";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by function, largest first, as "share  name file:line". */
function topSelfTime(profile: CpuProfile, count: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    const name = `${frame?.functionName || "(anonymous)"} ${frame?.url.split("/").pop() ?? ""}:${frame?.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + dt);
    total += dt;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
}

/** Redis's received bytes and CPU so far (INFO), to price a call on the server too. */
async function netBytes(redis: Redis): Promise<{ input: number; cpuUs: number }> {
  const info = await redis.info();
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
  return {
    input: field("total_net_input_bytes"),
    cpuUs: (field("used_cpu_sys") + field("used_cpu_user")) * 1e6,
  };
}

async function main(): Promise<void> {
  const server = await startRedisServer({ appendfsync: "everysec" });
  const admin = new Redis(server.url, { maxRetriesPerRequest: null });
  // Connected as the runner connects (createRedisConnection: writes coalesced per turn).
  const depsRedis = createRedisConnection(
    { url: server.url, clusterNodes: [] },
    { maxRetriesPerRequest: null },
  ) as Redis;
  const prefix = "bench:profile";
  try {
    const { deps } = await testRunDeps({
      redis: depsRedis,
      keyPrefix: prefix,
      tools: [noopReadTool()],
      script: readFilesScript(CALLS_PER_RUN),
    });
    const round = async (count: number, session?: Session): Promise<CpuProfile | undefined> => {
      const queue = agentQueue(admin, prefix);
      await queue.pause();
      await Promise.all(
        Array.from({ length: count }, () =>
          enqueueAgentRun(queue, testPayload({}, { maxSteps: CALLS_PER_RUN + 5, task: "read" })),
        ),
      );
      const connection = createRedisConnection(
        { url: server.url, clusterNodes: [] },
        { maxRetriesPerRequest: null },
      ) as Redis;
      const worker = startAgentWorker({ connection, keyPrefix: prefix, concurrency, deps });
      let done = 0;
      const finished = new Promise<void>((resolve, reject) => {
        worker.on("completed", () => {
          if (++done === count) resolve();
        });
        worker.on("failed", (_job, err) => reject(err));
      });
      await worker.waitUntilReady();
      if (session) await session.post("Profiler.start");
      const netBefore = await netBytes(admin);
      const cpu = process.cpuUsage();
      const start = performance.now();
      await queue.resume();
      await finished;
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      const profile = session ? ((await session.post("Profiler.stop")).profile as CpuProfile) : undefined;
      const calls = count * CALLS_PER_RUN;
      const netAfter = await netBytes(admin);
      console.log(
        `concurrency ${concurrency}, ${count} runs: ${Math.round((calls / ms) * 1000)} tool calls/s, ` +
          `CPU ${Math.round((used.user + used.system) / calls)} µs per call (system ${Math.round(used.system / calls)}), ` +
          `Redis CPU ${Math.round((netAfter.cpuUs - netBefore.cpuUs) / calls)} µs and ` +
          `${Math.round((netAfter.input - netBefore.input) / calls)} bytes in per call${session ? " (profiled)" : ""}`,
      );
      await worker.close();
      connection.disconnect();
      await queue.obliterate({ force: true });
      await queue.close();
      return profile;
    };
    // Warm-up (JIT, script loading) before the profiled round.
    await round(Math.max(20, concurrency * 2));
    await round(runs);
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    const profile = await round(runs, session);
    session.disconnect();
    if (profile) {
      await writeFile(out, JSON.stringify(profile));
      console.log(`profile written to ${out}; top self time:\n${topSelfTime(profile, 30).join("\n")}`);
    }
  } finally {
    await deleteKeysWithPrefix(admin, prefix);
    await deleteKeysWithPrefix(admin, `{${prefix}}`);
    depsRedis.disconnect();
    admin.disconnect();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
