import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { openAgentQueue } from "../../src/queue/index.js";
import { type ParkingWorker, startParkingWorker } from "../helpers/parking-worker.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * `echo-runner run` follows its run whatever else the store holds: another run's damaged request
 * (a `req` field that does not parse) does not stop the follow, and a request of its own that is
 * damaged is named, not fatal. A real worker parks the run on an exec call.
 */
const redis = testRedisClient();
const keyPrefix = uniquePrefix("follow-damaged").replace(/:/g, "-");
let worker: ParkingWorker;
let dir: string;
let configPath: string;
const env = { REDIS_URL: testRedisUrl(), USER: "tester" };

beforeAll(async () => {
  worker = await startParkingWorker({
    redis,
    redisUrl: testRedisUrl(),
    keyPrefix,
    publicUrl: "http://127.0.0.1:9",
    concurrency: 2,
  });
  dir = await mkdtemp(join(tmpdir(), "echo-follow-damaged-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    stringify({
      redis: { key_prefix: keyPrefix },
      approvers: [{ id: "tester" }],
      models: { scripted: { provider: "scripted", script: "unused.yaml" } },
      logging: { level: "silent", format: "json" },
    }),
  );
  await writeFile(
    join(dir, "deployer.yaml"),
    stringify({ task: "deploy the site", workspace: ".", model: "scripted" }),
  );
});

afterAll(async () => {
  await worker.stop();
  const queue = openAgentQueue(redis, keyPrefix);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

async function cli(args: string[]) {
  const out = bufferIo("", env, dir);
  const code = await runCli([...args, "--config", configPath], out.io);
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

describe("echo-runner run with damaged approval requests", () => {
  it("follows its run through park, approval and resume while another run's request is damaged", async () => {
    const { record: other } = await worker.store.register({
      runId: "another-run",
      jobId: "another-run",
      traceId: "another-trace",
      idempotencyKey: "k-other",
      tool: "exec",
      args: { command: "make other" },
      risk: "exec",
      reason: "needs a person",
      agent: "other",
      channel: "cron",
      owner: "ann",
    });
    await redis.hset(worker.store.keys.request(other.id), "req", "{not json");
    const out = bufferIo("", env, dir);
    const exit = runCli(["run", join(dir, "deployer.yaml"), "--config", configPath], out.io);
    await expect.poll(() => out.stdout(), { timeout: 30_000, interval: 100 }).toContain("PARKED");
    const approvalId = /approval ([0-9a-f]{32})/.exec(out.stdout())?.[1];
    expect(approvalId).toBeDefined();
    expect((await cli(["approvals", "approve", approvalId!])).code).toBe(0);
    expect(await exit).toBe(0);
    expect(out.stdout()).toMatch(/RESUMED[\s\S]*FINISHED: completed/);
    expect(out.stdout()).not.toContain(other.id);
    expect(out.stderr()).toBe("");
  }, 60_000);

  it("names its own request that became damaged while parked, and goes on following", async () => {
    const out = bufferIo("", env, dir);
    const exit = runCli(["run", join(dir, "deployer.yaml"), "--config", configPath], out.io);
    await expect.poll(() => out.stdout(), { timeout: 30_000, interval: 100 }).toContain("PARKED");
    const approvalId = /approval ([0-9a-f]{32})/.exec(out.stdout())?.[1] ?? "";
    const runId = /enqueued run (cli-[0-9a-f-]+)/.exec(out.stdout())?.[1] ?? "";
    await redis.hset(worker.store.keys.request(approvalId), "req", "{not json");
    await expect
      .poll(() => out.stdout(), { timeout: 15_000, interval: 100 })
      .toContain(`WAITING for approval request ${approvalId}, which cannot be read (approval request`);
    // Still following: cancelling the run ends the follow with the run's failure.
    expect((await cli(["jobs", "cancel", runId])).code).toBe(0);
    expect(await exit).toBe(1);
    expect(out.stdout()).toContain("FAILED");
  }, 60_000);
});
