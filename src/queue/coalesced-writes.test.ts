import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisServerProcess, startRedisServer } from "../../test/helpers/redis-server.js";
import { createRedisConnection } from "./redis-connection.js";

// A server of its own: the read counter below is server-wide, so no other test may talk to it.
let server: RedisServerProcess;
let admin: Redis;
beforeAll(async () => {
  server = await startRedisServer({ appendfsync: "everysec" });
  admin = new Redis(server.url);
});
afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

/** How many reads the server has made from its clients so far. */
async function serverReads(): Promise<number> {
  const info = await admin.info("stats");
  return Number(/^total_reads_processed:(\d+)/m.exec(info)?.[1]);
}

/** Sends `count` commands in one turn of the event loop; returns the replies and the server's reads. */
async function burst(client: Redis, count: number): Promise<{ replies: string[]; reads: number }> {
  const before = await serverReads();
  const replies = await Promise.all(Array.from({ length: count }, (_, i) => client.echo(`m${i}`)));
  // The second INFO is one read of its own.
  return { replies, reads: (await serverReads()) - before - 1 };
}

describe("coalesced writes", () => {
  it("sends the commands of one event-loop turn in one write, replies in order", async () => {
    const client = createRedisConnection({ url: server.url, clusterNodes: [] }) as Redis;
    await client.ping();
    const { replies, reads } = await burst(client, 200);
    expect(replies).toEqual(Array.from({ length: 200 }, (_, i) => `m${i}`));
    expect(reads).toBe(1);
    client.disconnect();
  });

  it("keeps coalescing after the connection is lost and made again", async () => {
    const client = createRedisConnection({ url: server.url, clusterNodes: [] }) as Redis;
    await client.ping();
    const reconnected = new Promise<void>((resolve) => client.once("ready", () => resolve()));
    await admin.client("KILL", "ID", String(await client.client("ID")));
    await reconnected;
    const { replies, reads } = await burst(client, 200);
    expect(replies[199]).toBe("m199");
    expect(reads).toBe(1);
    client.disconnect();
  });

  it("is what makes the difference: a plain client's commands reach the server in several reads", async () => {
    // The control for the two tests above, so they cannot pass for another reason: without
    // coalescing, 200 separate writes are not all in the socket when the server first reads.
    // (A stalled server could read them all at once, so the control takes the most of five bursts.)
    const plain = new Redis(server.url);
    await plain.ping();
    let most = 0;
    for (let i = 0; i < 5; i++) most = Math.max(most, (await burst(plain, 200)).reads);
    expect(most).toBeGreaterThan(1);
    plain.disconnect();
  });
});
