// The fake model of the in-flight bench, in its own process (`node bin/run-ts.js
// bench/inflight/slow-model-main.ts`): an OpenAI-style chat-completions server that answers every
// request after a fixed delay (DELAY_MS, default 1000). A run takes STEPS model steps (default 5): the
// first STEPS-1 each ask for one write_file call, the last answers. GET /stats returns the arrival
// times (ms since the epoch) of the requests and this process's CPU since the last POST /reset. Prints "model ready <url>".
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { reply } from "../../test/helpers/fake-chat-server.js";

const delayMs = Number(process.env.DELAY_MS ?? "1000");
const steps = Number(process.env.STEPS ?? "5");
let arrivals: number[] = [];
let inFlight = 0;
let peakInFlight = 0;
/** CPU this server has used since the last reset: what the fake model costs the shared machine. */
let cpuAtReset = process.cpuUsage();

function send(res: import("node:http").ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") {
    const used = process.cpuUsage(cpuAtReset);
    send(res, 200, { arrivals, peakInFlight, delayMs, steps, cpuUs: used.user + used.system });
    return;
  }
  if (req.method === "POST" && req.url === "/reset") {
    arrivals = [];
    peakInFlight = 0;
    cpuAtReset = process.cpuUsage();
    send(res, 200, { ok: true });
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    arrivals.push(Date.now());
    inFlight++;
    peakInFlight = Math.max(peakInFlight, inFlight);
    let turns = 0;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: { role: string }[] };
      turns = body.messages.filter((m) => m.role === "assistant").length;
    } catch {
      turns = steps;
    }
    const answer =
      turns < steps - 1
        ? reply.toolCalls([
            { name: "write_file", arguments: { path: `f${turns}.txt`, content: `step-${turns}` } },
          ])
        : reply.content("done");
    setTimeout(() => {
      inFlight--;
      if (answer.kind === "json") send(res, answer.status, answer.body);
      else send(res, 500, { error: { message: "unexpected reply kind" } });
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`model ready http://127.0.0.1:${port}/v1\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
