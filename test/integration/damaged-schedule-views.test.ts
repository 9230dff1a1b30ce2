import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/index.js";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { agentQueue } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * One stored schedule that cannot be read among healthy ones: `schedules list` lists the healthy
 * ones, names the damaged one on stderr and exits 1; /admin shows the healthy ones and names the
 * damaged one (escaped), the rest of the dashboard as usual.
 */
const TOKEN = "damaged-schedules-token-0123456789-abcd";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("damaged-sched");
const queue = agentQueue(redis, keyPrefix);
const approvals = new ApprovalStore({
  redis,
  keyPrefix,
  policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "olga", email: null }] },
});
const inspector = new RunInspector({ redis, keyPrefix, approvals });
const scheduleStore = new ScheduleStore({ redis, keyPrefix });
const service = new ScheduleService({ store: scheduleStore });
const app = createHttpServer({
  redis,
  logger: createLogger({ level: "silent", format: "json" }),
  operators: new OperatorCredentials([{ id: "olga", token: TOKEN }]),
  admin: {
    keyPrefix,
    publicUrl: "http://127.0.0.1:8787",
    approvals,
    runs: inspector,
    queues: [queue],
    schedules: service,
  },
});
let dir: string;
let configPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-damaged-sched-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\n`);
  for (const id of ["healthy-a", "broken", "healthy-b"]) {
    await service.create(
      {
        v: 1,
        id,
        cron: "0 2 * * *",
        timezone: "UTC",
        agent: { model: "scripted", task: "write the report", maxSteps: 5, workspace: dir },
        owner: "ann",
        source: { kind: "cli" },
      },
      { approvalSource: null },
    );
  }
  const stored = JSON.parse((await redis.hget(scheduleStore.keys.defs, "broken"))!) as Record<
    string,
    unknown
  >;
  await redis.hset(scheduleStore.keys.defs, "broken", JSON.stringify({ ...stored, rev: "<two>" }));
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await inspector.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("a damaged stored schedule in the views", () => {
  it("`schedules list` lists the healthy ones, names the damaged one on stderr and exits 1", async () => {
    const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl() }, dir);
    const code = await runCli(["schedules", "list", "--config", configPath], out.io);
    expect(code).toBe(1);
    expect(out.stdout()).toContain("healthy-a");
    expect(out.stdout()).toContain("healthy-b");
    expect(out.stdout()).not.toContain("broken");
    const lines = out.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      "damaged broken: SCHEDULE_INVALID: stored schedule broken does not match its schema",
    );
  });

  it("/admin shows the healthy schedules and names the damaged one", async () => {
    const login = await app.inject({
      method: "POST",
      url: "/admin/login",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token: TOKEN }).toString(),
    });
    const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
    const page = await app.inject({ method: "GET", url: "/admin", headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<td><code>healthy-a</code></td>");
    expect(page.body).toContain("<td><code>healthy-b</code></td>");
    const notice = /<div class="error" id="damaged-schedules">[\s\S]*?<\/div>/.exec(page.body)?.[0] ?? "";
    expect(notice).toContain("1 schedule cannot be read: neither fired nor changed here.");
    expect(notice).toContain(
      "<code>broken</code> SCHEDULE_INVALID: stored schedule broken does not match its schema",
    );
    expect(notice).toContain("&quot;broken&quot;");
    expect(page.body).toContain('id="no-pending"');
  });
});
