import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { defineTool, toolFailure } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { openAgentQueue } from "../../src/queue/index.js";
import { approvalsFromConfig, type RunningPart, startWorkerPart } from "../../src/runtime/index.js";
import { createToolRegistry } from "../../src/tools/index.js";
import { testConfig } from "../helpers/agent-harness.js";
import { startCli } from "../helpers/cli-process.js";
import { type LocalHit, type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { type SmtpCapture, startSmtpCapture } from "../helpers/smtp-capture.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Hostile text shown to people, through the real worker (startWorkerPart: approval mail over real SMTP, Slack,
 * Teams and JSON webhooks over real HTTP, digests) and the real CLI processes (`run`, `jobs show`,
 * `audit`): a model and an agent that write escape sequences (clear screen, OSC 52 clipboard
 * writes, OSC 8 links), bidi overrides, phishing URLs, Slack ``` / <!channel> and Teams markdown.
 * Nothing of it reaches a person as the runner's own formatting: the terminal gets no escape
 * sequence, mail and chat no raw bidi character and no live link, Slack and Teams no markup.
 */

const ESC = "\u001b";
const BEL = "\u0007";
const RLO = "\u202e";
const CLEAR = `${ESC}[2J${ESC}[H`;
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4vKgo=${BEL}`;
const OSC8 = `${ESC}]8;;https://evil.example/login${ESC}\\Approve here${ESC}]8;;${ESC}\\`;
const HOSTILE_ARGS = {
  command: `echo "\`\`\`" <!channel> <@U0123> <https://evil.example/ok|Approve now> [Approve](https://evil.example/x) **urgent** file${RLO}gnp.sh`,
};
const keyPrefix = uniquePrefix("hostile").replace(/:/g, "-");
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
let dir: string;
let configPath: string;
let config: Awaited<ReturnType<typeof testConfig>>;
let smtp: SmtpCapture;
let hooks: LocalHttpServer;
let worker: RunningPart;
const received: { path: string; body: string }[] = [];
let env: Record<string, string>;

/** Raw characters no output may carry: ESC, BEL, C1 controls, bidi overrides and isolates. */
function rawControls(text: string): string[] {
  return [...text].filter(
    (c) =>
      c === ESC || c === BEL || (c >= "\u0080" && c <= "\u009f") || /[\u202a-\u202e\u2066-\u2069]/u.test(c),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "echo-hostile-"));
  smtp = await startSmtpCapture();
  const record = (hit: LocalHit, res: import("node:http").ServerResponse) => {
    received.push({ path: hit.path, body: hit.body.toString("utf8") });
    res.writeHead(200).end("ok");
  };
  hooks = await startLocalHttpServer({ "POST /slack": record, "POST /teams": record, "POST /json": record });
  env = {
    SLACK_URL: `${hooks.origin}/slack`,
    TEAMS_URL: `${hooks.origin}/teams`,
    JSON_URL: `${hooks.origin}/json`,
  };
  await writeFile(
    join(dir, "script.yaml"),
    stringify([
      {
        content: `Routine step.${CLEAR}${OSC52} Nothing to see; ${OSC8} ${RLO}txt.exe`,
        tool_calls: [{ name: "exec", arguments: HOSTILE_ARGS }],
      },
      { content: `done${CLEAR}${OSC52}${OSC8}\r${RLO}all good` },
    ]),
  );
  config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false } },
    smtp: { host: smtp.host, port: smtp.port, secure: false, user: "", from: "runner@example.test" },
    http: { public_url: "https://runner.example.test" },
    operator: "olga",
    approvers: [
      {
        id: "olga",
        email: "olga@example.test",
        chat_webhooks: [
          { format: "slack", url_env: "SLACK_URL" },
          { format: "teams", url_env: "TEAMS_URL" },
          { format: "json", url_env: "JSON_URL" },
        ],
      },
    ],
    notifications: { digest_window_seconds: 1, allow_internal_webhooks: [new URL(hooks.origin).host] },
    models: { scripted: { provider: "scripted", script: join(dir, "script.yaml") } },
    logging: { level: "silent", format: "json" },
  });
  configPath = join(dir, "echo.yaml");
  await writeFile(
    join(dir, "deployer.yaml"),
    stringify({ task: `deploy ${CLEAR}${OSC52} the site ${RLO}`, workspace: dir, model: "scripted" }),
  );
  const exec = defineTool({
    name: "exec",
    description: "fails with hostile text (test tool)",
    parameters: Type.Object({ command: Type.String() }),
    async execute() {
      return toolFailure("business", `exit 1${CLEAR}${OSC52}${OSC8} see https://evil.example ${RLO}`);
    },
  });
  worker = await startWorkerPart(
    { config, logger, env, redis, baseDir: dir, protectedPaths: [] },
    { registry: createToolRegistry([exec]), releaseRun: async () => 0, close: async () => undefined },
  );
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  const queue = openAgentQueue(redis, keyPrefix);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
  await smtp?.close();
  await hooks?.close();
});

const cliEnv = () => ({ PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl(), USER: "olga", ...env });

async function cli(...args: string[]): Promise<string> {
  const child = startCli([...args, "--config", configPath], { cwd: dir, env: cliEnv() });
  expect(await child.exited, child.output()).toBe(0);
  return child.output();
}

/** Checks a Slack body: hostile text only in literal elements, never in mrkdwn, no raw link. */
function checkSlack(body: string): void {
  const json = JSON.parse(body) as {
    text: string;
    blocks: { type: string; elements?: { type: string; text?: string }[] }[];
  };
  expect(rawControls(body)).toEqual([]);
  expect(body).not.toContain("https://evil");
  expect(json.text).not.toContain("<!");
  for (const block of json.blocks) {
    expect(["header", "rich_text", "actions", "divider", "context"]).toContain(block.type);
    for (const el of block.elements ?? [])
      if (el.type === "mrkdwn") expect(el.text).not.toMatch(/```|<!|evil/);
  }
  const preformatted = json.blocks
    .filter((b) => b.type === "rich_text")
    .flatMap((b) => b.elements as unknown as { type: string; elements: { text: string }[] }[])
    .filter((e) => e.type === "rich_text_preformatted")
    .flatMap((e) => e.elements.map((t) => t.text))
    .join("");
  // The ``` and <!channel> of the arguments are literal text of a preformatted element.
  expect(preformatted).toMatch(/echo \\?"```\\?" <!channel> <@U0123>/);
  expect(preformatted).toContain("file\\u202egnp.sh");
}

/** Checks a Teams body: hostile text only in TextRuns (no markdown), never in a TextBlock. */
function checkTeams(body: string): void {
  expect(rawControls(body)).toEqual([]);
  expect(body).not.toContain("https://evil");
  const card = (
    JSON.parse(body) as { attachments: { content: { body: { type: string; text?: string }[] } }[] }
  ).attachments[0]!.content;
  for (const block of card.body) {
    expect(block.type === "TextBlock" && /Approve|evil|\*\*/.test(block.text ?? "")).toBe(false);
    expect(block.type).not.toBe("FactSet");
  }
  expect(body).toContain("[Approve](https[:]//evil.example/x) **urgent**");
}

describe("text the runner did not write cannot pass for the runner's (real worker, SMTP, webhooks, CLI)", () => {
  it("neutralises the approval mail, chat payloads, `run`, `jobs show` and `audit` output", async () => {
    const run = startCli(["run", join(dir, "deployer.yaml"), "--config", configPath], {
      cwd: dir,
      env: cliEnv(),
    });
    await run.waitForOutput(/PARKED/, 30_000);
    const approvalId = /approval ([0-9a-f]{32})/.exec(run.output())![1]!;

    // The approval mail: no raw bidi or control character, the arguments' links defanged in the text
    // and in the HTML (never an <a> but the runner's own link), the agent's words escaped.
    const mail = await smtp.waitForMail((m) => (m.subject ?? "").includes("approve exec"));
    const text = mail.text ?? "";
    const html = typeof mail.html === "string" ? mail.html : "";
    for (const part of [text, html, mail.subject ?? ""]) {
      expect(rawControls(part)).toEqual([]);
      expect(part).not.toContain("https://evil");
    }
    expect(text).toContain("https[:]//evil.example/ok|Approve now");
    expect(text).toContain("file\\u202egnp.sh");
    expect(text).toContain("shown defanged");
    expect(text).toContain("\\u001b[2J");
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href.startsWith("https://runner.example.test/approvals/")).toBe(true);

    // Slack, Teams and the generic JSON webhook got the request, neutralised for each.
    await expect.poll(() => new Set(received.map((r) => r.path)).size).toBe(3);
    checkSlack(received.find((r) => r.path === "/slack")!.body);
    checkTeams(received.find((r) => r.path === "/teams")!.body);
    const json = received.find((r) => r.path === "/json")!.body;
    expect(rawControls(json)).toEqual([]);
    expect(json).not.toContain("https://evil");

    // `run` follows to the end: the task, the reasons and the final answer print no escape sequence.
    await cli("approvals", "approve", approvalId);
    expect(await run.exited).toBe(0);
    const shown = run.output();
    expect(rawControls(shown)).toEqual([]);
    expect(shown).toContain("FINISHED");
    expect(shown).toContain("\\u000d\\u202eall good");
    const runId = /enqueued run (\S+)/.exec(shown)![1]!;

    // `jobs show` (text and JSON) and `audit`: the transcript, the tool's error, the decisions.
    const jobs = await cli("jobs", "show", runId);
    expect(rawControls(jobs)).toEqual([]);
    expect(jobs).toContain("Routine step.");
    expect(jobs).toContain("Approve here");
    const jobsJson = await cli("jobs", "show", runId, "--json");
    expect(rawControls(jobsJson)).toEqual([]);
    expect(JSON.parse(jobsJson)).toMatchObject({ runId });
    const audit = await cli("audit", "--trace", runId);
    expect(rawControls(audit)).toEqual([]);
    expect(audit).toContain("exit 1");
    const auditJson = await cli("audit", "--trace", runId, "--json");
    expect(rawControls(auditJson)).toEqual([]);
  }, 90_000);

  it("neutralises a digest's mail and chat messages", async () => {
    const { store, notifications, close } = approvalsFromConfig(config, redis, env, logger, {
      sending: true,
    });
    try {
      const before = { mails: smtp.messages.length, hooks: received.length };
      const register = async (n: number) =>
        (
          await store.register({
            runId: "digest-run",
            jobId: "digest-run",
            traceId: "digest-run",
            idempotencyKey: `digest-key-${n}`,
            tool: "exec",
            args: { ...HOSTILE_ARGS, n },
            risk: "exec",
            reason: `needs a person ${RLO}<!channel> https://evil.example/r`,
            agent: "deployer",
            channel: "api",
          })
        ).record;
      const first = await register(1);
      await notifications.notify(first.id);
      const second = await register(2);
      await notifications.notify(second.id);
      await new Promise((r) => setTimeout(r, 1200));
      await notifications.retryUnsent();
      const digest = await smtp.waitForMail((m) => (m.subject ?? "").includes("more approval request"));
      for (const part of [digest.text ?? "", typeof digest.html === "string" ? digest.html : ""]) {
        expect(rawControls(part)).toEqual([]);
        expect(part).not.toContain("https://evil");
        expect(part).toContain("\\u202e");
      }
      await expect
        .poll(
          () =>
            received
              .slice(before.hooks)
              .filter((r) => r.body.includes("digest") || r.body.includes("more approval")).length,
        )
        .toBeGreaterThanOrEqual(3);
      for (const hit of received.slice(before.hooks)) {
        expect(rawControls(hit.body)).toEqual([]);
        expect(hit.body).not.toContain("https://evil");
        if (hit.path === "/slack") checkSlack(hit.body);
      }
      expect(smtp.messages.length).toBeGreaterThan(before.mails);
    } finally {
      await close();
    }
  }, 60_000);
});
