import { Redis } from "ioredis";
import { ApprovalStore } from "../src/approvals/index.js";
import { createHttpServer } from "../src/http/index.js";
import { createLogger } from "../src/logging/index.js";
import { deleteKeysWithPrefix } from "../test/helpers/test-redis.js";
import { runStandalone } from "./standalone.js";

/**
 * Link timing: does the answer to a wrong link token tell whether the request id exists? Interleaved
 * GETs over real HTTP of `/approvals/<known id>?t=<junk>` and `/approvals/<unknown id>?t=<junk>`
 * (fresh junk each time, so only the per-request failure counter grows; its limit is lifted here);
 * reports median, p90 and mean per kind and checks the bodies are equal.
 * Run alone: `node bin/run-ts.js bench/link-timing.bench.ts` (REDIS_URL or a throwaway redis-server).
 */
export async function runLinkTimingBench(redisUrl: string, rounds = 2000): Promise<string> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const prefix = `bench-linktime-${process.pid}`;
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "ann", email: null }] },
  });
  const app = createHttpServer({
    redis,
    logger: createLogger({ level: "silent", format: "json" }),
    failureLimits: { perLink: 1_000_000_000 },
    approvals: { store, publicUrl: "http://127.0.0.1:8787" },
  });
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const { record } = await store.register({
      runId: "run-1",
      jobId: "job-1",
      traceId: "t",
      idempotencyKey: "k-1",
      tool: "exec",
      args: { command: "make", notes: "x".repeat(4000) },
      risk: "exec",
      reason: "r",
      agent: "a",
      channel: "cron",
    });
    for (let i = 0; i < 5; i += 1) await store.issueToken(record.id, "ann");
    const unknownId = "f".repeat(32);
    const times = { known: [] as number[], unknown: [] as number[] };
    const bodies = new Set<string>();
    for (let i = 0; i < rounds + 200; i += 1) {
      const junk = `J${String(i).padStart(42, "0")}`;
      for (const kind of i % 2 === 0 ? (["known", "unknown"] as const) : (["unknown", "known"] as const)) {
        const id = kind === "known" ? record.id : unknownId;
        const started = performance.now();
        const res = await fetch(`${base}/approvals/${id}?t=${junk}`);
        const body = await res.text();
        const ms = performance.now() - started;
        if (i >= 200) times[kind].push(ms); // the first 200 rounds warm up
        bodies.add(`${res.status} ${body}`);
      }
    }
    const stats = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return `median ${at(0.5).toFixed(3)} ms, p90 ${at(0.9).toFixed(3)} ms, mean ${mean.toFixed(3)} ms`;
    };
    return [
      `wrong link token, ${rounds} interleaved GETs each over real HTTP:`,
      `  known request id:   ${stats(times.known)}`,
      `  unknown request id: ${stats(times.unknown)}`,
      `  distinct status+body answers: ${bodies.size} (1 = indistinguishable by content)`,
    ].join("\n");
  } finally {
    await app.close();
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  }
}

runStandalone("link timing", (url) => runLinkTimingBench(url));
