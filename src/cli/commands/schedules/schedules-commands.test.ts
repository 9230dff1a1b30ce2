import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deleteKeysWithPrefix,
  testRedisClient,
  testRedisUrl,
  uniquePrefix,
} from "../../../../test/helpers/test-redis.js";
import { loadConfig } from "../../../config/index.js";
import { type AgentQueue, openAgentQueue } from "../../../queue/index.js";
import { reconcileConfigSchedules, ScheduleService, ScheduleStore } from "../../../scheduler/index.js";
import { isRunnerError } from "../../../shared/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";
import { checkedConfigScheduleEntries } from "../config/index.js";

let redis: Redis;
let prefix: string;
let dir: string;
let configPath: string;
let service: ScheduleService;
let queue: AgentQueue;

const AGENTS = `models:
  scripted: { provider: scripted, script: ./script.yaml }
agents:
  triage: { model: scripted, task: "triage the inbox", workspace: ./ws, allowed_tools: [read_file] }
`;

beforeAll(async () => {
  redis = testRedisClient();
  prefix = uniquePrefix("schedcli");
  dir = await mkdtemp(join(tmpdir(), "echo-cli-schedules-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${prefix}"\noperator: ops\n${AGENTS}`);
  queue = openAgentQueue(redis, prefix);
  service = new ScheduleService({
    store: new ScheduleStore({ redis, keyPrefix: prefix }),
    agentQueue: queue,
  });
});
afterAll(async () => {
  await queue.close();
  await deleteKeysWithPrefix(redis, prefix);
  await deleteKeysWithPrefix(redis, `{${prefix}}`);
  redis.disconnect();
});

async function cli(...argv: string[]) {
  const { io, stdout, stderr } = bufferIo("", { REDIS_URL: testRedisUrl() }, dir);
  const code = await runCli([...argv, "--config", configPath], io);
  return { code, out: stdout(), err: stderr() };
}

async function scheduleFile(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  return path;
}

describe("echo-runner schedules", () => {
  it("adds every schedule of a file or none: one bad entry adds nothing and names every problem", async () => {
    const file = await scheduleFile(
      "mixed.yaml",
      [
        '- { id: fine-one, cron: "0 3 * * *", timezone: UTC, agent: triage }',
        '- { id: bad-zone, cron: "0 3 * * *", timezone: Europe/Berln, agent: triage }',
        '- { id: bad-cron, cron: "61 * * * *", timezone: UTC, agent: triage }',
        '- { id: fine-two, cron: "0 4 * * *", timezone: UTC, agent: triage }',
      ].join("\n"),
    );
    const added = await cli("schedules", "add", "--file", file);
    expect(added.code).not.toBe(0);
    expect(added.err).toContain("nothing added; 2 problems");
    expect(added.err).toMatch(
      /mixed\.yaml\[1\] \(id "bad-zone"\): timezone: unknown time zone "Europe\/Berln"/,
    );
    expect(added.err).toMatch(/mixed\.yaml\[2\] \(id "bad-cron"\): cron: .*invalid minute field "61"/);
    expect(await service.get("fine-one")).toBeNull();
    expect(await service.get("fine-two")).toBeNull();
  });

  it("adds a schedule from a file, naming a config agent, without cron authorisation", async () => {
    const file = await scheduleFile(
      "a.yaml",
      'id: inbox\ncron: "0 2 * * *"\ntimezone: Europe/Berlin\nagent: triage\n',
    );
    const added = await cli("schedules", "add", "--file", file);
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/inbox .* not cron-authorised \(no-grant\)/);
    const shown = await cli("schedules", "show", "inbox", "--json");
    const view = JSON.parse(shown.out);
    expect(view.schedule).toMatchObject({
      owner: "ops",
      overlap: "skip",
      catchUp: "latest",
      source: { kind: "cli", file },
      agent: { model: "scripted", allowedTools: ["read_file"], maxSteps: 50, workspace: join(dir, "ws") },
    });
    expect(view.history.map((e: { kind: string }) => e.kind)).toEqual(["created"]);
    const list = await cli("schedules", "list");
    expect(list.out).toMatch(/^inbox\s+enabled\s+0 2 \* \* \* \(Europe\/Berlin\)/m);
  });

  it.each([
    { body: 'id: bad\ncron: "0 2 * *"\ntimezone: UTC\nagent: triage\n', message: /cron: .*4 fields/ },
    {
      body: 'id: bad\ncron: "0 2 * * *"\ntimezone: Moon/Base\nagent: triage\n',
      message: /timezone: unknown time zone/,
    },
    {
      body: 'id: bad\ncron: "0 2 * * *"\ntimezone: UTC\nagent: nobody\n',
      message: /agent: no agent "nobody"/,
    },
    {
      body: 'id: bad\ncron: "0 2 * * *"\ntimezone: UTC\nagent: triage\nauthorized: true\n',
      message: /authorized:/,
    },
    { body: 'id: bad\ncron: "0 2 * * *"\ntimezone: UTC\nagent: triage\nretries: 3\n', message: /retries/ },
  ])("refuses a file schedule with a clear error ($message)", async ({ body, message }) => {
    const file = await scheduleFile("bad.yaml", body);
    const result = await cli("schedules", "add", "--file", file);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/SCHEDULE_INVALID/);
    expect(result.err).toMatch(message);
  });

  it("previews the next firings in the schedule's zone", async () => {
    const file = await scheduleFile(
      "b.yaml",
      'id: morning\ncron: "0 9 * * *"\ntimezone: America/New_York\nagent: triage\n',
    );
    await cli("schedules", "add", "--file", file);
    const { code, out } = await cli("schedules", "next", "morning", "-n", "3", "--json");
    expect(code).toBe(0);
    const next: string[] = JSON.parse(out).next;
    expect(next).toHaveLength(3);
    for (const iso of next) expect(iso).toMatch(/T1[34]:00:00\.000Z$/);
    expect([...next].sort()).toEqual(next);
    expect((await cli("schedules", "next", "morning", "-n", "0")).code).toBe(2);
  });

  it("pauses and resumes, and run-now enqueues a run", async () => {
    const file = await scheduleFile(
      "c.yaml",
      'id: toggled\ncron: "*/5 * * * *"\ntimezone: UTC\nagent: triage\n',
    );
    await cli("schedules", "add", "--file", file);
    expect((await cli("schedules", "pause", "toggled")).out).toMatch(/^paused: toggled\s+paused/);
    expect((await cli("schedules", "show", "toggled")).out).toMatch(/next\s+- \(paused\)/);
    expect((await cli("schedules", "resume", "toggled")).out).toMatch(/^resumed: toggled\s+enabled/);
    const ran = await cli("schedules", "run-now", "toggled", "--json");
    const { runId } = JSON.parse(ran.out);
    expect(runId).toMatch(/^sched-toggled-manual-\d+$/);
    expect((await queue.getJob(runId))?.data.origin).toEqual({
      kind: "schedule",
      scheduleId: "toggled",
      scheduledFor: expect.any(Number),
    });
  });

  it("revokes an active grant (exit 0) and reports when there is none (exit 1)", async () => {
    await service.create(
      {
        v: 1,
        id: "granted",
        cron: "0 * * * *",
        timezone: "UTC",
        agent: { model: "scripted", task: "t", maxSteps: 3, workspace: "/tmp" },
        owner: "alice",
        source: { kind: "cronjob" },
      },
      { approvalSource: "human", approver: "bob" },
    );
    const first = await cli("schedules", "revoke", "granted");
    expect(first.code).toBe(0);
    expect((await cli("schedules", "show", "granted")).out).toMatch(/cron auth\s+no: grant revoked by ops/);
    const second = await cli("schedules", "revoke", "granted");
    expect([second.code, second.out]).toEqual([
      1,
      "granted has no active cron authorisation; nothing to revoke\n",
    ]);
  });

  it("removes a schedule, refuses a config one, and fails on an unknown id", async () => {
    const file = await scheduleFile(
      "d.yaml",
      'id: doomed\ncron: "0 3 * * *"\ntimezone: UTC\nagent: triage\n',
    );
    await cli("schedules", "add", "--file", file);
    expect((await cli("schedules", "remove", "doomed")).out).toBe("removed doomed\n");
    const again = await cli("schedules", "remove", "doomed");
    expect([again.code, again.err]).toEqual([1, 'echo-runner: SCHEDULE_INVALID: id: no schedule "doomed"\n']);
    await reconcileConfigSchedules(
      service.store,
      [
        {
          authorized: false,
          schedule: {
            v: 1,
            id: "from-config",
            cron: "0 4 * * *",
            timezone: "UTC",
            agent: { model: "scripted", task: "t", maxSteps: 3, workspace: "/tmp" },
            owner: "ops",
            source: { kind: "config", file: configPath },
          },
        },
      ],
      Date.now(),
    );
    const refused = await cli("schedules", "remove", "from-config");
    expect(refused.err).toMatch(/defined in the config file .*echo\.yaml; delete it there/);
  });

  it("says which Redis it cannot reach", async () => {
    const { io, stderr } = bufferIo("", { REDIS_URL: "redis://:secret@127.0.0.1:1" }, dir);
    expect(await runCli(["schedules", "list", "--config", configPath], io)).toBe(1);
    expect(stderr()).toMatch(/REDIS_UNAVAILABLE: cannot reach Redis at redis:\/\/:?\*+@127\.0\.0\.1:1/);
    expect(stderr()).not.toMatch(/secret/);
  });
});

describe("checkedConfigScheduleEntries", () => {
  it("maps config schedules onto the scheduler's entries with the agent spec and the source file", async () => {
    const path = join(dir, "with-schedules.yaml");
    await writeFile(
      path,
      `${AGENTS}schedules:\n  - { id: nightly, cron: "0 2 * * *", timezone: UTC, agent: triage, overlap: queue, catch_up: all, catch_up_max: 3, jitter_seconds: 30, enabled: true, owner: ops, authorized: true }\n`,
    );
    const loaded = await loadConfig({ configPath: path, env: {}, cwd: dir, userConfigPath: null });
    const [entry] = checkedConfigScheduleEntries(loaded, dir);
    expect(entry).toEqual({
      authorized: true,
      schedule: {
        v: 1,
        id: "nightly",
        cron: "0 2 * * *",
        timezone: "UTC",
        agent: {
          model: "scripted",
          task: "triage the inbox",
          allowedTools: ["read_file"],
          maxSteps: 50,
          workspace: join(dir, "ws"),
        },
        overlap: "queue",
        catchUp: "all",
        catchUpMax: 3,
        jitterSeconds: 30,
        enabled: true,
        owner: "ops",
        source: { kind: "config", file: path },
      },
    });
  });

  it("names a schedule whose agent is not defined", async () => {
    const path = join(dir, "bad-agent.yaml");
    await writeFile(
      path,
      `schedules:\n  - { id: x, cron: "0 2 * * *", timezone: UTC, agent: ghost, overlap: skip, catch_up: none, jitter_seconds: 0, enabled: true, owner: ops, authorized: false }\n`,
    );
    const loaded = await loadConfig({ configPath: path, env: {}, cwd: dir, userConfigPath: null });
    let err: unknown;
    try {
      checkedConfigScheduleEntries(loaded, dir);
    } catch (e) {
      err = e;
    }
    expect(isRunnerError(err, "CONFIG_INVALID")).toBe(true);
    expect((err as Error).message).toContain(
      'schedules[0] (id "x").agent: no agent "ghost" in agents (defined: none)',
    );
  });
});
