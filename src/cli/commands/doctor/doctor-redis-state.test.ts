import { rm } from "node:fs/promises";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { fillRedisToOom } from "../../../../test/helpers/redis-oom.js";
import { startRedisServer } from "../../../../test/helpers/redis-server.js";
import { checkRedis } from "./doctor-redis.js";
import { memoryUse, writeRefusal } from "./doctor-redis-state.js";

const MB = 1024 * 1024;

describe("doctor: Redis memory against maxmemory", () => {
  it.each([
    ["no limit", 10 * MB, 0, "ok", /no maxmemory limit/],
    ["well below the limit", 10 * MB, 100 * MB, "ok", /10 %/],
    ["above 80 %", 81 * MB, 100 * MB, "warn", /81 %\): at the limit Redis refuses writes \(OOM\)/],
    ["at the limit", 100 * MB, 100 * MB, "warn", /out of memory.*refuses writes \(OOM\).*wait up to 600 s/],
  ])("%s", (_what, used, max, status, reason) => {
    const check = memoryUse(
      new Map([
        ["used_memory", String(used)],
        ["maxmemory", String(max)],
      ]),
      600,
    );
    expect(check.status).toBe(status);
    expect(check.reason).toMatch(reason);
    if (status !== "ok") expect(check.fix).toMatch(/raise maxmemory/);
  });
});

describe("doctor: what stops Redis taking writes", () => {
  it.each([
    ["nothing", [["role", "master"]], undefined, undefined],
    [
      "a failed AOF write",
      [
        ["aof_enabled", "1"],
        ["aof_last_write_status", "err"],
      ],
      "fail",
      /AOF.*MISCONF/,
    ],
    ["a failed snapshot", [["rdb_last_bgsave_status", "err"]], "fail", /snapshot failed.*MISCONF/],
    [
      "a dataset loading",
      [
        ["loading", "1"],
        ["loading_eta_seconds", "12"],
      ],
      "warn",
      /loading.*12 s/,
    ],
    ["a replica", [["role", "slave"]], "fail", /read-only replica/],
  ] as const)("%s", (_what, fields, status, reason) => {
    const check = writeRefusal(new Map(fields.map(([k, v]) => [k, v])));
    expect(check?.status).toBe(status);
    if (reason) expect(check?.reason).toMatch(reason);
  });

  it("names a real Redis's failed save (MISCONF) and its full memory, with the fixes", async () => {
    const server = await startRedisServer({ appendfsync: "everysec" });
    const admin = new Redis(server.url, { maxRetriesPerRequest: null });
    try {
      // Left full and broken: the server is thrown away (MISCONF refuses even the DEL of a release).
      await fillRedisToOom(admin, "doctor-filler");
      await admin.config("SET", "save", "3600 1");
      await rm(server.dir, { recursive: true, force: true });
      await admin.bgsave();
      await expect
        .poll(async () => /rdb_last_bgsave_status:err/.test(await admin.info("persistence")))
        .toBe(true);
      const checks = await checkRedis({ url: server.url, source: "REDIS_URL", timeoutMs: 2000 });
      expect(checks.find((c) => c.name === "redis.writes")).toMatchObject({
        status: "fail",
        fix: expect.stringMatching(/free disk space/),
      });
      expect(checks.find((c) => c.name === "redis.memory.used")).toMatchObject({
        status: "warn",
        reason: expect.stringMatching(/out of memory/),
      });
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });
});
