import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AllowAlwaysGrant, ApprovalStore, RedisAllowAlwaysStore } from "../../src/approvals/index.js";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { createHttpServer, OperatorCredentials } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { ScheduleService, ScheduleStore } from "../../src/scheduler/index.js";
import { agentQueue } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A stored allow-always record that cannot be read allows nothing; the grant lists name it instead
 * of hiding it: `approvals grants list` (stderr, exit 1), `GET /api/approvals/grants` (`damaged`)
 * and /admin (a notice above the grants, whose Revoke buttons stay).
 */
const TOKEN = "damaged-grants-token-0123456789-abcdefg";
const redis = testRedisClient();
const keyPrefix = uniquePrefix("damaged-grants");
const queue = agentQueue(redis, keyPrefix);
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "olga", email: null }] },
});
const grants = new RedisAllowAlwaysStore(redis, keyPrefix);
const inspector = new RunInspector({ redis, keyPrefix, approvals: store });
const app = createHttpServer({
  redis,
  logger: createLogger({ level: "silent", format: "json" }),
  operators: new OperatorCredentials([{ id: "olga", token: TOKEN }]),
  approvals: { store, publicUrl: "http://127.0.0.1:8787", grants },
  admin: {
    keyPrefix,
    publicUrl: "http://127.0.0.1:8787",
    approvals: store,
    runs: inspector,
    queues: [queue],
    schedules: new ScheduleService({ store: new ScheduleStore({ redis, keyPrefix }) }),
    grants,
  },
});
const damagedField = `agent:ops:${"d".repeat(64)}`;
let live: AllowAlwaysGrant;
let dir: string;
let configPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-damaged-grants-"));
  configPath = join(dir, "echo.yaml");
  await writeFile(configPath, `redis:\n  key_prefix: "${keyPrefix}"\napprovers:\n  - { id: olga }\n`);
  live = await grants.add({
    v: 1,
    tool: "exec",
    argsHash: "a".repeat(64),
    scope: "agent",
    scopeId: "ops",
    createdBy: "olga",
    createdAt: Date.now(),
  });
  await redis.hset(`${keyPrefix}:{approvals}:always:exec`, damagedField, "{not json");
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

describe("a damaged allow-always record in the grant lists", () => {
  it("`approvals grants list` lists the live grant, names the damaged record on stderr and exits 1", async () => {
    const out = bufferIo("", { HOME: dir, REDIS_URL: testRedisUrl(), USER: "olga" }, dir);
    expect(await runCli(["approvals", "grants", "list", "--config", configPath], out.io)).toBe(1);
    expect(out.stdout()).toContain(live.id);
    const lines = out.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^damaged [0-9a-f]{16}: APPROVAL_CORRUPT: allow-always record /);
    expect(lines[0]).toContain(
      `"${damagedField}" of exec is corrupt: it is not valid JSON; it allows nothing`,
    );
  });

  it("GET /api/approvals/grants returns the live grants and the damaged record in `damaged`", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/approvals/grants",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().grants.map((g: AllowAlwaysGrant) => g.id)).toEqual([live.id]);
    expect(res.json().damaged).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{16}$/),
        code: "APPROVAL_CORRUPT",
        message: expect.stringContaining(damagedField),
      },
    ]);
  });

  it("/admin names the damaged record above the grants and keeps the live grant's Revoke button", async () => {
    const login = await app.inject({
      method: "POST",
      url: "/admin/login",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token: TOKEN }).toString(),
    });
    const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
    const page = await app.inject({ method: "GET", url: "/admin", headers: { cookie } });
    expect(page.statusCode).toBe(200);
    const notice = /<div class="error" id="damaged-grants">[\s\S]*?<\/div>/.exec(page.body)?.[0] ?? "";
    expect(notice).toContain("1 allow-always record cannot be read: it allows nothing.");
    expect(notice).toContain(`&quot;${damagedField}&quot; of exec is corrupt`);
    expect(page.body).toContain(live.id);
    expect(page.body).toContain(`/admin/grants/${live.id}/revoke`);
  });
});
