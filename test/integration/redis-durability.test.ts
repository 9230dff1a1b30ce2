import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { checkRedisDurability } from "../../src/runtime/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import { testConfig } from "../helpers/agent-harness.js";
import { RedisServerProcess } from "../helpers/redis-server.js";

/**
 * A worker reads its Redis's persistence settings at start. With appendfsync
 * always nothing is said; with everysec (or AOF off) one warning line says what a machine crash
 * can do; under execution.durability: strict the start is refused naming the setting and the fix.
 */
let server: RedisServerProcess;
let admin: Redis;
beforeAll(async () => {
  server = await RedisServerProcess.start({ appendfsync: "always" });
  admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger({
    level: "info",
    format: "json",
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { lines, logger };
}

describe("the Redis durability check at worker start", () => {
  it("says nothing about a Redis with appendfsync always, warns once about everysec, refuses it when strict", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-durability-"));
    const standard = await testConfig(dir, {});
    const strict = await testConfig(dir, { execution: { durability: "strict" } });
    expect(standard.execution.durability).toBe("standard");

    const quiet = capture();
    await checkRedisDurability(admin, strict, quiet.logger);
    expect(quiet.lines).toEqual([]);

    await admin.config("SET", "appendfsync", "everysec");
    const warned = capture();
    await checkRedisDurability(admin, standard, warned.logger);
    expect(warned.lines).toHaveLength(1);
    expect(warned.lines[0]?.msg).toContain(
      "a machine crash can lose about the last second of acknowledged writes",
    );

    const refused = await checkRedisDurability(admin, strict, capture().logger).catch((e: unknown) => e);
    expect(isRunnerError(refused, "REDIS_UNAVAILABLE")).toBe(true);
    expect((refused as Error).message).toContain("execution.durability is strict");
    expect((refused as Error).message).toContain("appendfsync always");

    await admin.config("SET", "appendonly", "no");
    const off = await checkRedisDurability(admin, strict, capture().logger).catch((e: unknown) => e);
    expect((off as Error).message).toContain("AOF is off");
  });
});
