// A parking worker process (see parking-worker.ts) for memory figures:
// `node --expose-gc bin/run-ts.js test/helpers/parking-worker-main.ts`, configured by REDIS_URL,
// KEY_PREFIX, CONCURRENCY. Prints "worker ready" once it takes jobs; each "memory" line on stdin is
// answered with one JSON line of process.memoryUsage() taken after a full GC (when --expose-gc).
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { startParkingWorker } from "./parking-worker.js";

const env = process.env;
const redisUrl = env.REDIS_URL ?? "";
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
const worker = await startParkingWorker({
  redis,
  redisUrl,
  keyPrefix: env.KEY_PREFIX ?? "",
  publicUrl: "http://127.0.0.1:1",
  concurrency: Number(env.CONCURRENCY ?? "1"),
});
process.stdout.write("worker ready\n");

const gc = (globalThis as { gc?: () => void }).gc;
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "memory") {
    gc?.();
    process.stdout.write(`${JSON.stringify({ gc: gc !== undefined, ...process.memoryUsage() })}\n`);
  }
}
// stdin closed: the parent is done with us.
await worker.stop();
redis.disconnect();
