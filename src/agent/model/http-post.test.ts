import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpPoster } from "./http-post.js";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

/** A server that holds every request until `batch` are open at once, then answers them all. */
async function batchingServer(batch: number): Promise<{ url: URL; connections: () => number }> {
  let connections = 0;
  let waiting: (() => void)[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      waiting.push(() => res.end(JSON.stringify({ ok: true })));
      if (waiting.length === batch) {
        const all = waiting;
        waiting = [];
        for (const answer of all) answer();
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", () => connections++);
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", () => done()));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/v1/chat/completions`), connections: () => connections };
}

describe("createHttpPoster", () => {
  it("keeps every idle connection: a second wave of 300 requests at once opens none", async () => {
    // Node's default pool keeps 256 idle connections and closes the rest: the second wave then
    // opened 44 new ones (a connect and a close per request beyond 256, on both sides).
    const wave = 300;
    const { url, connections } = await batchingServer(wave);
    const poster = createHttpPoster(url, { "content-type": "application/json" });
    const send = () =>
      Promise.all(Array.from({ length: wave }, () => poster.post("{}", AbortSignal.timeout(20_000))));
    const first = await send();
    expect(first.every((a) => a.status === 200 && a.text === '{"ok":true}')).toBe(true);
    expect(connections()).toBe(wave);
    const second = await send();
    expect(second.every((a) => a.status === 200)).toBe(true);
    expect(connections()).toBe(wave);
  }, 30_000);
});
