import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ApprovalStore } from "../../src/approvals/index.js";
import { openAgentQueue } from "../../src/queue/index.js";
import { type CliProcess, startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * What was approved is what runs, scripts included, through the real runner (`echo-runner start`: worker, sandboxed exec, HTTP
 * server) and the real CLI (`echo-runner run`, `approvals approve`): an approved `bash deploy.sh`
 * binds deploy.sh's content. An "approve always" runs the same script again without asking; once the
 * script changes the call asks again — also when it changes while the run is parked, after its
 * approval: the approved version is the only one that ever runs without a new approval.
 */

const keyPrefix = uniquePrefix("runfiles").replace(/:/g, "-");
const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
let dir: string;
let ws: string;
let configPath: string;
let runner: CliProcess;
const env = () => ({ PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl(), USER: "olga" });
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const script = (version: string) => `echo ${version} >> out.txt\n`;
const store = () =>
  new ApprovalStore({
    redis,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "olga", email: null }] },
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-runfiles-"));
  // As root, commands run as uid 65534, which must be able to reach the workspace (mkdtemp is 0700).
  await chmod(dir, 0o755);
  ws = join(dir, "ws");
  await mkdir(ws);
  await chmod(ws, 0o777);
  await writeFile(join(ws, "deploy.sh"), script("v1"));
  await writeFile(
    join(dir, "script.yaml"),
    stringify([
      { tool_calls: [{ name: "exec", arguments: { command: "bash deploy.sh" } }] },
      { content: "deployed" },
    ]),
  );
  const port = await freePort();
  configPath = join(dir, "echo.yaml");
  await writeFile(
    configPath,
    stringify({
      redis: { key_prefix: keyPrefix },
      http: { port, public_url: `http://127.0.0.1:${port}` },
      logging: { level: "info", format: "json" },
      security: { profile: "personal_cli" },
      permissions: { elevated: { enabled: false } },
      approvers: [{ id: "olga" }],
      operator: "olga",
      models: { scripted: { provider: "scripted", script: "script.yaml" } },
    }),
  );
  await writeFile(
    join(dir, "deployer.yaml"),
    stringify({ task: "deploy", workspace: ws, model: "scripted" }),
  );
  runner = startCli(["start", "--config", configPath], { cwd: dir, env: env() });
  await runner.waitForOutput(/echo-runner is running/, 30_000);
}, 60_000);

afterAll(async () => {
  runner?.child.kill("SIGTERM");
  await runner?.exited;
  const queue = openAgentQueue(redis, keyPrefix);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  redis.disconnect();
});

/** `echo-runner run deployer.yaml`, followed until it parks (its approval id) or finishes. */
async function startRun(): Promise<{ run: CliProcess; parked: () => Promise<string> }> {
  const run = startCli(["run", join(dir, "deployer.yaml"), "--config", configPath], { cwd: dir, env: env() });
  return {
    run,
    async parked() {
      await run.waitForOutput(/PARKED/, 30_000);
      const ids = [...run.output().matchAll(/approval ([0-9a-f]{32})/g)].map((m) => m[1]!);
      return ids.at(-1)!;
    },
  };
}

async function approve(id: string, ...flags: string[]): Promise<void> {
  const cli = startCli(["approvals", "approve", id, ...flags, "--config", configPath], {
    cwd: dir,
    env: env(),
  });
  expect(await cli.exited, cli.output()).toBe(0);
}

const out = async () => (await readFile(join(ws, "out.txt"), "utf8").catch(() => "")).trim().split("\n");

describe("an approved exec binds the content of the script it runs", () => {
  it("approve always covers the approved script only; a changed script asks again, even while parked", async () => {
    // Run 1 asks; the request shows (and binds) deploy.sh's digest. Approved always, it runs v1.
    const first = await startRun();
    const firstId = await first.parked();
    const record = await store().get(firstId);
    expect(JSON.parse(record!.argsCanonical)).toMatchObject({
      args: { command: "bash deploy.sh" },
      runFiles: { "deploy.sh": `sha256:${sha(script("v1"))}` },
    });
    await approve(firstId, "--always");
    expect(await first.run.exited).toBe(0);
    expect(await out()).toEqual(["v1"]);

    // Run 2: the same script, unchanged: the grant covers it, nobody is asked.
    const second = await startRun();
    expect(await second.run.exited).toBe(0);
    expect(second.run.output()).not.toContain("PARKED");
    expect(await out()).toEqual(["v1", "v1"]);

    // The script changes: the same command asks again.
    await writeFile(join(ws, "deploy.sh"), script("v2"));
    const third = await startRun();
    const thirdId = await third.parked();
    expect(thirdId).not.toBe(firstId);
    await approve(thirdId);
    expect(await third.run.exited).toBe(0);
    expect(await out()).toEqual(["v1", "v1", "v2"]);

    // Changed after its approval while the run was parked: the run asks again, v3 does not run.
    const fourth = await startRun();
    const fourthId = await fourth.parked();
    await writeFile(join(ws, "deploy.sh"), script("v3"));
    await approve(fourthId);
    await expect
      .poll(async () => (await store().list({ status: "pending" })).map((r) => r.id))
      .toHaveLength(1);
    const [again] = await store().list({ status: "pending" });
    expect(again!.id).not.toBe(fourthId);
    expect(JSON.parse(again!.argsCanonical).runFiles).toEqual({ "deploy.sh": `sha256:${sha(script("v3"))}` });
    expect(await out()).toEqual(["v1", "v1", "v2"]);

    // A link out of the workspace is not read; the request says so instead of a digest.
    await unlink(join(ws, "deploy.sh"));
    await writeFile(join(dir, "outside.sh"), script("outside"));
    await symlink(join(dir, "outside.sh"), join(ws, "deploy.sh"));
    await approve(again!.id);
    await expect
      .poll(async () => (await store().list({ status: "pending" })).map((r) => r.id))
      .toEqual([expect.not.stringMatching(again!.id)]);
    const [linked] = await store().list({ status: "pending" });
    expect(JSON.parse(linked!.argsCanonical).runFiles).toEqual({
      "deploy.sh": "outside the workspace (not read)",
    });
    const cancel = startCli(["approvals", "deny", linked!.id, "--config", configPath], {
      cwd: dir,
      env: env(),
    });
    expect(await cancel.exited).toBe(0);
    // Denied: the run goes on without the call and finishes; no version after v2 ever ran.
    expect(await fourth.run.exited).toBe(0);
    expect(await out()).toEqual(["v1", "v1", "v2"]);
  }, 120_000);
});
