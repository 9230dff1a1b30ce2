import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ApprovalNotifications,
  type ApprovalRecord,
  ApprovalStore,
  ChatWebhookNotifier,
} from "../../src/approvals/index.js";
import { createHttpServer } from "../../src/http/index.js";
import { createLogger } from "../../src/logging/index.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Slack buttons end to end: the runner posts its approval message to a local server standing in for
 * Slack (incoming webhook), the test reads the Approve / Deny buttons from that message and clicks
 * them as Slack does — a `block_actions` payload, form-encoded, signed with the app's signing secret
 * (the signer below follows Slack's documentation, not the runner's code) — over real HTTP to the
 * real server, on a real Redis. The ephemeral answers arrive at the payload's response_url.
 */

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefix = uniquePrefix("slack-approvals");
let slack: LocalHttpServer;
let runner: ReturnType<typeof createHttpServer>;
let runnerUrl: string;
let store: ApprovalStore;
let notifications: ApprovalNotifications;
const SLACK_USERS: Record<string, string> = { U0ALICE: "alice", U0BOB: "bob", U0CAROL: "carol" };

/** Slack's v0 request signing, written from api.slack.com/authentication/verifying-requests-from-slack. */
function signAsSlack(body: string, timestamp: number, secret = SECRET): Record<string, string> {
  const base = `v0:${timestamp}:${body}`;
  return {
    "content-type": "application/x-www-form-urlencoded",
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": `v0=${createHmac("sha256", secret).update(base).digest("hex")}`,
  };
}

/** A block_actions payload for one button click, as Slack posts it to the Request URL. */
function clickBody(userId: string, button: { action_id: string; value: string }): string {
  const payload = {
    type: "block_actions",
    user: { id: userId, username: userId.toLowerCase(), team_id: "T0TEAM" },
    api_app_id: "A0APP",
    team: { id: "T0TEAM", domain: "example" },
    container: { type: "message", message_ts: "1700000000.000100", channel_id: "C0OPS" },
    trigger_id: "123.456.abc",
    response_url: `${slack.origin}/actions/T0TEAM/1/xyz`,
    actions: [{ ...button, type: "button", block_id: "b", action_ts: "1700000001.000200" }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

async function post(body: string, headers: Record<string, string>) {
  const response = await fetch(`${runnerUrl}/slack/interactions`, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const now = () => Math.floor(Date.now() / 1000);

let n = 0;
async function register(owner: string | null = null): Promise<ApprovalRecord> {
  n += 1;
  const { record } = await store.register({
    runId: `run-${n}`,
    jobId: `run-${n}`,
    traceId: `run-${n}`,
    idempotencyKey: `key-${n}`,
    tool: "exec",
    args: { command: `make deploy-${n}` },
    risk: "exec",
    reason: "deploys need a person",
    agent: "deployer",
    channel: "cron",
    owner,
  });
  return record;
}

/** The buttons of the message the runner posted to the Slack channel about one request. */
async function buttonsFor(id: string): Promise<{ action_id: string; value: string; url?: string }[]> {
  await notifications.notify(id);
  const hit = slack.hitsOf("/channel").find((h) => h.body.toString("utf8").includes(id));
  expect(hit, "the runner posted no Slack message about the request").toBeDefined();
  const message = JSON.parse(hit!.body.toString("utf8")) as {
    blocks: { type: string; elements?: { action_id: string; value: string; url?: string }[] }[];
  };
  return message.blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements ?? []);
}

/**
 * Waits (bounded) for an ephemeral answer saying `text` at the response_url. Found by what it says,
 * not by its position: every test's clicks answer at the same URL, each some time after its click,
 * so a count depends on which tests ran before and how late their answers landed.
 */
async function answerSaying(text: unknown): Promise<Record<string, unknown>> {
  const until = Date.now() + 5_000;
  for (;;) {
    const answers = slack
      .hitsOf("/actions/T0TEAM/1/xyz")
      .map((hit) => JSON.parse(hit.body.toString("utf8")) as Record<string, unknown>);
    const found = answers.find((answer) => answer.text === text);
    if (found) return found;
    if (Date.now() > until)
      throw new Error(`no answer ${JSON.stringify(text)} at the response_url within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  slack = await startLocalHttpServer({
    "POST /channel": (_hit, res) => {
      res.writeHead(200).end("ok");
    },
    "POST /actions/T0TEAM/1/xyz": (_hit, res) => {
      res.writeHead(200).end("ok");
    },
  });
  store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    policy: {
      waitTimeoutMs: 3_600_000,
      requiredApprovals: { exec: 2 },
      forbidSelfApproval: true,
      approvers: [
        { id: "alice", email: null },
        { id: "bob", email: null },
        { id: "carol", email: null },
      ],
    },
  });
  notifications = new ApprovalNotifications({
    store,
    notifiers: [
      new ChatWebhookNotifier({
        name: "slack:OPS",
        format: "slack",
        url: `${slack.origin}/channel`,
        personalFor: null,
        adminUrl: null,
        interactive: true,
      }),
    ],
    publicUrl: "https://runner.example.test",
    logger,
    retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
  runner = createHttpServer({
    redis,
    logger,
    keyPrefix: prefix,
    approvals: { store, publicUrl: "https://runner.example.test" },
    slack: {
      store,
      signingSecret: SECRET,
      approverOf: (id) => SLACK_USERS[id] ?? null,
      responseUrlOrigins: [slack.origin],
    },
  });
  runnerUrl = await runner.listen({ host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await runner.close();
  await slack.close();
  await deleteKeysWithPrefix(redis, prefix);
  await redis.quit();
});

describe("Slack Approve / Deny buttons", () => {
  // Each test starts with the whole failure allowance: the throttle test below leaves its address
  // blocked for a window, and the refusals count against it, so without this a refusal answers
  // 429 instead of its own error whenever enough of them ran before it.
  beforeEach(async () => {
    await deleteKeysWithPrefix(redis, `${prefix}:{http}:authfail:`);
  });

  it("decide a request end to end: two approvers' clicks make the quorum, each answered ephemerally", async () => {
    const record = await register("carol");
    const buttons = await buttonsFor(record.id);
    const approve = buttons.find((b) => b.action_id === "echo_approve")!;
    expect(approve).toMatchObject({ value: record.id });
    expect(buttons.find((b) => b.action_id === "echo_deny")).toMatchObject({ value: record.id });

    const first = await post(
      clickBody("U0ALICE", approve),
      signAsSlack(clickBody("U0ALICE", approve), now()),
    );
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
    expect(first.body.text).toContain("1 of 2 approvals");
    expect((await answerSaying(first.body.text)).text).toBe(first.body.text);
    expect((await store.require(record.id)).status).toBe("pending");

    // The run's owner is barred (forbid_self_approval) as on every other path.
    const self = await post(clickBody("U0CAROL", approve), signAsSlack(clickBody("U0CAROL", approve), now()));
    expect(self.body.text).toContain("owner of this run may not decide");
    // One person, one vote.
    const again = clickBody("U0ALICE", approve).replace("1700000001.000200", "1700000002.000200");
    expect((await post(again, signAsSlack(again, now()))).body.text).toContain("already decided");

    const second = await post(clickBody("U0BOB", approve), signAsSlack(clickBody("U0BOB", approve), now()));
    expect(second.body.text).toContain("the run resumes");
    const decided = await store.require(record.id);
    expect(decided.status).toBe("approved");
    expect(decided.decisions.map((d) => [d.by, d.decision, d.via])).toEqual([
      ["alice", "approve", "slack"],
      ["bob", "approve", "slack"],
    ]);
  });

  it("a Deny click denies the request", async () => {
    const record = await register();
    const deny = (await buttonsFor(record.id)).find((b) => b.action_id === "echo_deny")!;
    const body = clickBody("U0BOB", deny);
    const reply = await post(body, signAsSlack(body, now()));
    expect(reply.body.text).toContain("You denied");
    expect((await store.require(record.id)).status).toBe("denied");
  });

  it("refuses an unknown Slack user with a clear ephemeral answer and decides nothing", async () => {
    const record = await register();
    const approve = (await buttonsFor(record.id)).find((b) => b.action_id === "echo_approve")!;
    const body = clickBody("U0MALLORY", approve);
    const reply = await post(body, signAsSlack(body, now()));
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ response_type: "ephemeral" });
    expect(reply.body.text).toContain("Nothing was decided");
    expect(reply.body.text).toContain("slack_user_id: U0MALLORY");
    expect((await answerSaying(reply.body.text)).text).toBe(reply.body.text);
    const after = await store.require(record.id);
    expect(after.status).toBe("pending");
    expect(after.decisions).toEqual([]);
  });

  it.each([
    [
      "a bad signature",
      (body: string) => signAsSlack(body, now(), "0".repeat(32)),
      401,
      "SLACK_SIGNATURE_INVALID",
    ],
    [
      "no signature",
      (body: string) => ({ ...signAsSlack(body, now()), "x-slack-signature": "" }),
      401,
      "SLACK_SIGNATURE_INVALID",
    ],
    [
      "a signature of another body",
      (body: string) => signAsSlack(`${body}&x=1`, now()),
      401,
      "SLACK_SIGNATURE_INVALID",
    ],
    [
      "a timestamp 6 minutes old",
      (body: string) => signAsSlack(body, now() - 360),
      401,
      "SLACK_REQUEST_STALE",
    ],
    [
      "a timestamp 6 minutes ahead",
      (body: string) => signAsSlack(body, now() + 360),
      401,
      "SLACK_REQUEST_STALE",
    ],
  ])("refuses %s and decides nothing", async (_what, sign, status, code) => {
    const record = await register();
    const approve = (await buttonsFor(record.id)).find((b) => b.action_id === "echo_approve")!;
    const body = clickBody("U0ALICE", approve);
    const reply = await post(body, sign(body));
    expect(reply.status).toBe(status);
    expect(reply.body.error).toBe(code);
    expect((await store.require(record.id)).decisions).toEqual([]);
  });

  it("refuses a replayed request: the same signed click presented twice decides once", async () => {
    const record = await register();
    const deny = (await buttonsFor(record.id)).find((b) => b.action_id === "echo_deny")!;
    const approve = { ...deny, action_id: "echo_approve" };
    const body = clickBody("U0ALICE", approve);
    const headers = signAsSlack(body, now());
    expect((await post(body, headers)).status).toBe(200);
    const replay = await post(body, headers);
    expect(replay.status).toBe(409);
    expect(replay.body.error).toBe("SLACK_REQUEST_REPLAYED");
    expect((await store.require(record.id)).decisions).toHaveLength(1);
  });
  it("throttles bad signatures from one address (429) while a click Slack signed still decides", async () => {
    const record = await register();
    const approve = (await buttonsFor(record.id)).find((b) => b.action_id === "echo_approve")!;
    const body = clickBody("U0ALICE", approve);
    let status = 0;
    for (let i = 0; i < 20 && status !== 429; i++) {
      status = (await post(body, signAsSlack(body, now(), "f".repeat(32)))).status;
    }
    expect(status).toBe(429);
    const good = await post(body, signAsSlack(body, now()));
    expect(good.status).toBe(200);
    expect((await store.require(record.id)).decisions.map((d) => d.by)).toEqual(["alice"]);
  });
});
