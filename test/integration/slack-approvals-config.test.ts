import { createHmac } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/index.js";
import { approvalsFromConfig, startHttpPart } from "../../src/runtime/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import { testConfig } from "../helpers/agent-harness.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Slack approvals as an operator configures them: `notifications.slack.signing_secret_env` and the
 * approvers' `slack_user_id` reach the worker's Slack messages (buttons) and the server
 * `echo-runner serve` starts (the signed route), and a missing or short secret stops the server.
 */

const SECRET = "0123456789abcdef0123456789abcdef";
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const keyPrefix = uniquePrefix("slackcfg");
let slack: LocalHttpServer;
let dir: string;

async function configWith() {
  return testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    http: { host: "127.0.0.1", port: 0 },
    notifications: {
      slack: { signing_secret_env: "SLACK_SIGNING_SECRET" },
      allow_internal_webhooks: [`127.0.0.1:${slack.port}`],
    },
    approvers: [
      { id: "alice", slack_user_id: "U0ALICE", slack_webhook_env: "OPS_SLACK" },
      { id: "bob", slack_user_id: "U0BOB" },
    ],
    logging: { level: "silent", format: "json" },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-slackcfg-"));
  slack = await startLocalHttpServer({
    "POST /ops": (_hit, res) => {
      res.writeHead(200).end("ok");
    },
  });
});

afterAll(async () => {
  await slack.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("Slack approvals from the config", () => {
  it("puts buttons in the worker's Slack message and decides a click on the served route as the mapped approver", async () => {
    const config = await configWith();
    const env = { SLACK_SIGNING_SECRET: SECRET, OPS_SLACK: `${slack.origin}/ops` };
    const approvals = approvalsFromConfig(config, redis, env, logger, { sending: true });
    const part = await startHttpPart({ config, logger, env, redis, baseDir: dir, protectedPaths: [] });
    try {
      const { record } = await approvals.store.register({
        runId: "run-cfg",
        jobId: "run-cfg",
        traceId: "run-cfg",
        idempotencyKey: "key-cfg",
        tool: "exec",
        args: { command: "make deploy" },
        risk: "exec",
        reason: "deploys need a person",
        agent: "deployer",
        channel: "cron",
      });
      await approvals.notifications.notify(record.id);
      const posted = JSON.parse(slack.hitsOf("/ops").at(-1)!.body.toString("utf8")) as {
        blocks: { type: string; elements?: { action_id: string; value: string }[] }[];
      };
      const approve = posted.blocks
        .filter((b) => b.type === "actions")
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id === "echo_approve");
      expect(approve).toMatchObject({ value: record.id });

      const body = new URLSearchParams({
        payload: JSON.stringify({ type: "block_actions", user: { id: "U0BOB" }, actions: [approve] }),
      }).toString();
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = `v0=${createHmac("sha256", SECRET).update(`v0:${timestamp}:${body}`).digest("hex")}`;
      const headers = {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
      };
      const unsigned = await fetch(`${part.address}/slack/interactions`, { method: "POST", headers, body });
      expect(unsigned.status).toBe(401);
      const reply = await fetch(`${part.address}/slack/interactions`, {
        method: "POST",
        headers: { ...headers, "x-slack-signature": signature },
        body,
      });
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { text: string }).text).toContain("the run resumes");
      const decided = await approvals.store.require(record.id);
      expect(decided.status).toBe("approved");
      expect(decided.decisions.map((d) => [d.by, d.via])).toEqual([["bob", "slack"]]);
    } finally {
      await part.stop();
      await approvals.close();
    }
  });

  it.each([
    ["unset", {}, "CONFIG_SECRET_MISSING"],
    ["shorter than Slack's 32 characters", { SLACK_SIGNING_SECRET: "short-secret" }, "CONFIG_INVALID"],
  ])("refuses to start the server when the signing secret is %s", async (_what, env, code) => {
    const config = await configWith();
    const started = startHttpPart({ config, logger, env, redis, baseDir: dir, protectedPaths: [] });
    const err = await started.then(
      async (part) => {
        await part.stop();
        return null;
      },
      (e: unknown) => e,
    );
    expect(isRunnerError(err) && err.code).toBe(code);
    expect(String((err as Error).message)).not.toContain("short-secret");
  });
});
