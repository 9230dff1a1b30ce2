import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { type AgentQueue, openAgentQueue } from "../../src/queue/index.js";
import { fillRedisToOom } from "../helpers/redis-oom.js";
import { type RedisServerProcess, startRedisServer } from "../helpers/redis-server.js";

/**
 * CLI commands against a Redis that refuses writes (`schedules run-now` once printed
 * "internal error" with a stack): one line naming the condition and what Redis said, one line with
 * the fix, exit 1, and a refused run-now enqueues nothing.
 */

let server: RedisServerProcess;
let admin: Redis;
let dir: string;
let configPath: string;
let queue: AgentQueue;

beforeAll(async () => {
  server = await startRedisServer({ appendfsync: "everysec" });
  admin = new Redis(server.url, { maxRetriesPerRequest: null });
  dir = await mkdtemp(join(tmpdir(), "echo-cli-refusals-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    `redis:\n  key_prefix: refusals\noperator: ops\nmodels:\n  scripted: { provider: scripted, script: ./script.yaml }\nagents:\n  triage: { model: scripted, task: "triage", workspace: ./ws, allowed_tools: [read_file] }\n`,
  );
  await writeFile(join(dir, "s.yaml"), 'id: nightly\ncron: "0 2 * * *"\ntimezone: UTC\nagent: triage\n');
  queue = openAgentQueue(admin, "refusals");
});

afterAll(async () => {
  await queue?.close();
  admin?.disconnect();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const { io, stdout, stderr } = bufferIo("", { REDIS_URL: server.url }, dir);
  const code = await runCli([...argv, "--config", configPath], io);
  return { code, out: stdout(), err: stderr() };
}

describe("CLI commands when Redis refuses writes", () => {
  it("answers run-now and pause with one line and a fix, no stack, and run-now enqueues nothing", async () => {
    expect((await cli("schedules", "add", "--file", join(dir, "s.yaml"))).code).toBe(0);
    const oom = await fillRedisToOom(admin, "refusals-filler");
    try {
      for (const argv of [
        ["schedules", "run-now", "nightly"],
        ["schedules", "pause", "nightly"],
      ]) {
        const { code, err } = await cli(...argv);
        expect(code, argv.join(" ")).toBe(1);
        const lines = err.trimEnd().split("\n");
        expect(lines, err).toHaveLength(2);
        expect(lines[0]).toMatch(/^echo-runner: REDIS_UNAVAILABLE: Redis is out of memory .*\(Redis: OOM /);
        expect(lines[1]).toMatch(/^ {2}fix: raise maxmemory/);
        expect(err).not.toMatch(/internal error|\n\s+at /);
      }
      const counts = await queue.getJobCounts();
      expect(
        Object.values(counts).reduce((a, b) => a + b, 0),
        JSON.stringify(counts),
      ).toBe(0);
      // Reads still work under OOM: the schedule is listed, not paused.
      expect((await cli("schedules", "list")).out).toMatch(/nightly/);
    } finally {
      await oom.release();
    }
    const ran = await cli("schedules", "run-now", "nightly", "--json");
    expect(ran.code, ran.err).toBe(0);
    expect(await queue.getWaitingCount()).toBe(1);
  });

  it("answers a Redis it cannot reach with one line naming it and the fix", async () => {
    const { io, stderr } = bufferIo("", { REDIS_URL: "redis://127.0.0.1:1" }, dir);
    const code = await runCli(["schedules", "list", "--config", configPath], io);
    expect(code).toBe(1);
    expect(stderr().trimEnd().split("\n")).toHaveLength(1);
    expect(stderr()).toMatch(/^echo-runner: REDIS_UNAVAILABLE: cannot reach Redis at .*start Redis/);
  });
});
