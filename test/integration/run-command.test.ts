import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { bufferIo } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run-cli.js";
import { openAgentQueue } from "../../src/queue/index.js";
import { type ParkingWorker, startParkingWorker } from "../helpers/parking-worker.js";
import { testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * `echo-runner run` against a real Redis and a real worker (startWorkerPart, as `echo-runner worker`
 * wires it): the worker's scripted model makes one exec call, which the gate sends to a person.
 */
const redis = testRedisClient();
const keyPrefix = uniquePrefix("runcmd").replace(/:/g, "-");
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
  dir = await mkdtemp(join(tmpdir(), "echo-runcmd-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    stringify({
      redis: { key_prefix: keyPrefix },
      // The CLI decides as $USER, which must name one of the approvers.
      approvers: [{ id: "tester" }],
      // The worker knows "scripted"; "ghost" is known here only, so its runs fail on the worker.
      models: {
        scripted: { provider: "scripted", script: "unused.yaml" },
        ghost: { provider: "scripted", script: "unused.yaml" },
      },
      logging: { level: "silent", format: "json" },
    }),
  );
});

afterAll(async () => {
  await worker.stop();
  const queue = openAgentQueue(redis, keyPrefix);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  redis.disconnect();
});

async function agentFile(name: string, agent: Record<string, unknown>): Promise<string> {
  const path = join(dir, `${name}.yaml`);
  await writeFile(path, stringify({ task: "deploy the site", workspace: ".", ...agent }));
  return path;
}

describe("echo-runner run", () => {
  it("follows a run through its park, the approval and the resume to the final answer (plain lines, exit 0)", async () => {
    const file = await agentFile("deployer", { model: "scripted" });
    const out = bufferIo("", env, dir);
    const exit = runCli(["run", file, "--config", configPath], out.io);
    await expect.poll(() => out.stdout(), { timeout: 30_000, interval: 100 }).toContain("PARKED");
    const approvalId = /approval ([0-9a-f]{32})/.exec(out.stdout())?.[1];
    expect(approvalId).toBeDefined();
    expect(out.stdout()).toContain(`or decide from here: echo-runner approvals approve ${approvalId}`);
    const approve = bufferIo("", env, dir);
    expect(await runCli(["approvals", "approve", approvalId!, "--config", configPath], approve.io)).toBe(0);
    expect(await exit).toBe(0);
    const text = out.stdout();
    const order = [
      /enqueued run cli-[0-9a-f-]+ \(agent deployer, model scripted\)/,
      /exec +ASK +step 11: .*\n +call: make deploy\n/,
      /PARKED: exec waits for a person .*\n {2}call: make deploy\n/,
      /approvers approver got their personal approval link by mail/,
      new RegExp(`approval ${approvalId}: approved by tester \\(approve, cli\\)`),
      /RESUMED/,
      /exec +ALLOW +step 11: approved by tester/,
      /-> exec success/,
      /FINISHED: completed after 2 model turns and 1 tool calls\ndeployed/,
    ];
    let from = 0;
    for (const pattern of order) {
      const match = pattern.exec(text.slice(from));
      expect(match, `${pattern} after position ${from} in:\n${text}`).not.toBeNull();
      from += (match?.index ?? 0) + (match?.[0].length ?? 0);
    }
  }, 60_000);

  it("prints JSON lines with --json and exits 1 when the run fails on the worker", async () => {
    const file = await agentFile("ghostly", { model: "ghost" });
    const out = bufferIo("", env, dir);
    expect(await runCli(["run", file, "--config", configPath, "--json"], out.io)).toBe(1);
    const events = out
      .stdout()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; error?: string });
    expect(events[0]).toMatchObject({ type: "enqueued", agent: "ghostly", model: "ghost" });
    expect(events.at(-1)?.type).toBe("failed");
    expect(events.at(-1)?.error).toContain('model "ghost"');
  }, 60_000);

  it("refuses an agent file whose model the config does not define (exit 2, names the known ones)", async () => {
    const file = await agentFile("nobody", { model: "gpt-9" });
    const out = bufferIo("", env, dir);
    expect(await runCli(["run", file, "--config", configPath], out.io)).toBe(2);
    expect(out.stderr()).toContain(
      'names model "gpt-9", which is not in config models (known: scripted, ghost)',
    );
  });

  it("gives up following at --timeout with exit 3 while the run waits on", async () => {
    const file = await agentFile("patient", { model: "scripted" });
    const out = bufferIo("", env, dir);
    // 20 s, not 3: the run must have parked before the follow gives up, and parking takes a few
    // seconds on a loaded CI machine (the test above allows it 30 s).
    const started = Date.now();
    expect(await runCli(["run", file, "--config", configPath, "--timeout", "20"], out.io)).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(19_000);
    expect(out.stdout()).toContain("PARKED");
    const runId = /enqueued run (cli-[0-9a-f-]+)/.exec(out.stdout())?.[1];
    expect(out.stdout()).toContain(
      `still parked (waiting for approval, a sub-agent or a retry) when --timeout ran out; it goes on without this command (see: echo-runner jobs show ${runId})`,
    );
    // No placeholder for an id, and none of BullMQ's words for a state.
    expect(out.stdout()).not.toContain("<run id>");
    expect(out.stdout()).not.toMatch(/\bdelayed\b/);
  }, 60_000);
});
