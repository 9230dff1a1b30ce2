import { rm } from "node:fs/promises";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillRedisToOom } from "../../test/helpers/redis-oom.js";
import { type RedisServerProcess, startRedisServer } from "../../test/helpers/redis-server.js";
import { Journal } from "../journal/index.js";
import { redisOutageOf } from "../shared/index.js";
import { type OutageRiderOptions, type RedisOutage, rideRedisOutages } from "./outage-rider.js";

// A Redis of its own: these tests fill it to maxmemory and break its disk.
let server: RedisServerProcess;
let admin: Redis;

beforeAll(async () => {
  server = await startRedisServer({ appendfsync: "everysec" });
  admin = new Redis(server.url, { maxRetriesPerRequest: null });
  admin.on("error", () => undefined);
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

/** A connection with a rider, and what the rider reported. */
function ridden(options: Partial<OutageRiderOptions> = {}) {
  const client = new Redis(server.url, { maxRetriesPerRequest: null });
  client.on("error", () => undefined); // a restart of the server is part of one test
  const events: string[] = [];
  const rider = rideRedisOutages(client, {
    budgetMs: 30_000,
    minDelayMs: 20,
    maxDelayMs: 200,
    settleMs: 50,
    onStart: (o: RedisOutage) => events.push(`start ${o.condition}`),
    onEnd: (o: RedisOutage) => events.push(`end ${o.condition}`),
    onGiveUp: (o: RedisOutage) => events.push(`give up ${o.condition}`),
    ...options,
  });
  return { client, events, rider };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("rideRedisOutages", () => {
  it("holds writes and journal scripts while Redis is out of memory and sends each once it has room; one outage reported", async () => {
    const { client, events, rider } = ridden();
    const journal = new Journal({ redis: client, keyPrefix: "rider-oom" });
    const oom = await fillRedisToOom(admin, "filler-oom");
    try {
      const pending = [
        ...Array.from({ length: 5 }, () => client.incr("rider:count")),
        journal.claim({ runId: "r1", key: "k1", owner: "w1", leaseMs: 10_000 }),
      ];
      let settled = false;
      void Promise.allSettled(pending).then(() => {
        settled = true;
      });
      await expect.poll(() => rider.current()?.condition).toBe("oom");
      await sleep(1000);
      expect(settled).toBe(false);
      expect(await admin.get("rider:count")).toBeNull();
      await oom.release();
      const results = await Promise.all(pending);
      expect(results.slice(0, 5).map(Number).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(results[5]).toMatchObject({ state: "claimed" });
      expect(await admin.get("rider:count")).toBe("5");
      await expect.poll(() => events).toEqual(["start oom", "end oom"]);
      await expect.poll(() => rider.current()).toBeUndefined();
    } finally {
      await oom.release();
      client.disconnect();
    }
  });

  it("counts a Redis that lets one write through and refuses the next as one outage", async () => {
    const { client, events } = ridden({ settleMs: 3000 });
    let oom = await fillRedisToOom(admin, "filler-flap-1");
    try {
      const first = client.incr("rider:flap");
      await expect.poll(() => events).toEqual(["start oom"]);
      await oom.release();
      expect(await first).toBe(1);
      oom = await fillRedisToOom(admin, "filler-flap-2");
      const second = client.incr("rider:flap");
      await sleep(300);
      await oom.release();
      expect(await second).toBe(2);
      expect(events).toEqual(["start oom"]);
      await expect.poll(() => events, { timeout: 6000 }).toEqual(["start oom", "end oom"]);
    } finally {
      await oom.release();
      client.disconnect();
    }
  });

  it("fails a refused command as before once the outage has outlasted the budget", async () => {
    const { client, events } = ridden({ budgetMs: 500 });
    const oom = await fillRedisToOom(admin, "filler-budget");
    try {
      const started = Date.now();
      const err = await client.set("rider:late", "1").catch((e: unknown) => e);
      expect(redisOutageOf(err)).toBe("oom");
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(events).toEqual(["start oom", "give up oom"]);
    } finally {
      await oom.release();
      client.disconnect();
    }
  });

  it("does not wait at all with a budget of 0, and leaves other errors alone", async () => {
    const { client, events } = ridden({ budgetMs: 0 });
    const oom = await fillRedisToOom(admin, "filler-zero");
    try {
      expect(redisOutageOf(await client.set("rider:zero", "1").catch((e: unknown) => e))).toBe("oom");
    } finally {
      await oom.release();
    }
    await client.hset("rider:zero-hash", "f", "v");
    const wrongType = await client.incr("rider:zero-hash").catch((e: unknown) => e);
    expect((wrongType as Error).message).toMatch(/^WRONGTYPE/);
    expect(events).toEqual([]);
    client.disconnect();
  });

  it("holds a write while a long script keeps Redis BUSY and sends it once the script ends", async () => {
    const { client, events } = ridden();
    const busy = new Redis(server.url, { maxRetriesPerRequest: null });
    await admin.config("SET", "busy-reply-threshold", "100");
    try {
      // Spins for 1.5 s on Redis's clock; after 100 ms every other client is answered BUSY.
      const script = busy.eval(
        "local t = redis.call('TIME') while true do local n = redis.call('TIME') if (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 1500000 then return 1 end end",
        0,
      );
      await sleep(300);
      const write = client.incr("rider:busy");
      await expect.poll(() => events).toEqual(["start busy"]);
      expect(await script).toBe(1);
      expect(await write).toBe(1);
      await expect.poll(() => events).toEqual(["start busy", "end busy"]);
    } finally {
      await admin.config("SET", "busy-reply-threshold", "5000");
      busy.disconnect();
      client.disconnect();
    }
  });

  it("holds a write while the server is a read-only replica (READONLY) and sends it once it is a primary again", async () => {
    const { client, events } = ridden();
    // A replica of a primary that is not there: no sync wipes the data, every write is refused.
    await admin.call("REPLICAOF", "127.0.0.1", "1");
    try {
      const write = client.incr("rider:readonly");
      await expect.poll(() => events).toEqual(["start readonly"]);
      await sleep(300);
      await admin.call("REPLICAOF", "NO", "ONE");
      expect(await write).toBe(1);
      await expect.poll(() => events).toEqual(["start readonly", "end readonly"]);
    } finally {
      await admin.call("REPLICAOF", "NO", "ONE");
      client.disconnect();
    }
  });

  it("reports a lost connection once, and its end once, while ioredis holds and re-sends the commands", async () => {
    const { client, events, rider } = ridden();
    try {
      await client.set("rider:before", "1");
      const down = server.kill();
      await expect.poll(() => rider.current()?.condition).toBe("connection");
      await down;
      const write = client.incr("rider:after-restart");
      await sleep(500);
      await server.restart();
      expect(await write).toBe(1);
      await expect.poll(() => events).toEqual(["start connection", "end connection"]);
    } finally {
      client.disconnect();
      admin.disconnect();
      admin = new Redis(server.url, { maxRetriesPerRequest: null });
      admin.on("error", () => undefined);
    }
  });

  it("holds writes while Redis cannot write to disk (MISCONF) and sends them once writes are allowed again", async () => {
    // A Redis whose data dir is removed under it: its next save fails, and with a save point set
    // (stop-writes-on-bgsave-error, on by default) it then refuses writes with MISCONF.
    const broken = await startRedisServer({ appendfsync: "everysec" });
    const brokenAdmin = new Redis(broken.url, { maxRetriesPerRequest: null });
    const client = new Redis(broken.url, { maxRetriesPerRequest: null });
    const events: string[] = [];
    rideRedisOutages(client, {
      budgetMs: 30_000,
      minDelayMs: 20,
      maxDelayMs: 200,
      settleMs: 50,
      onStart: (o) => events.push(`start ${o.condition}`),
      onEnd: (o) => events.push(`end ${o.condition}`),
    });
    try {
      await brokenAdmin.config("SET", "save", "3600 1");
      await rm(broken.dir, { recursive: true, force: true });
      await brokenAdmin.bgsave();
      await expect
        .poll(async () => /rdb_last_bgsave_status:err/.test(await brokenAdmin.info("persistence")))
        .toBe(true);
      const write = client.incr("rider:misconf");
      await expect.poll(() => events).toEqual(["start misconf"]);
      await sleep(300);
      await brokenAdmin.config("SET", "stop-writes-on-bgsave-error", "no");
      expect(await write).toBe(1);
      await expect.poll(() => events).toEqual(["start misconf", "end misconf"]);
    } finally {
      client.disconnect();
      brokenAdmin.disconnect();
      await broken.stop();
    }
  });
});
