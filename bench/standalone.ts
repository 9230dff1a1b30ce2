import { startRedisServer } from "../test/helpers/redis-server.js";

/**
 * Runs one bench file on its own (`node bin/run-ts.js bench/x.bench.ts`): on REDIS_URL or a throwaway
 * redis-server with AOF everysec, printing the bench's report. Deferred, so bench/index.ts, which
 * imports every bench module, can set ECHO_BENCH_RUNNER first and run them itself.
 */
export function runStandalone(name: string, run: (redisUrl: string) => Promise<string>): void {
  setImmediate(() => {
    if (process.env.ECHO_BENCH_RUNNER === "1") return;
    main(name, run).catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
  });
}

async function main(name: string, run: (redisUrl: string) => Promise<string>): Promise<void> {
  const fromEnv = process.env.REDIS_URL;
  const server = fromEnv ? undefined : await startRedisServer({ appendfsync: "everysec" });
  try {
    const redisUrl = fromEnv || server!.url;
    console.log(
      `${name} bench on ${fromEnv ? "REDIS_URL" : `a local redis-server (${redisUrl}, AOF everysec)`}`,
    );
    console.log(await run(redisUrl));
  } finally {
    await server?.stop();
  }
}
