import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import type { ParsedMail } from "mailparser";
import { stringify } from "yaml";
import { type ApprovalRecord, ApprovalStore } from "../../src/approvals/index.js";
import { bullPrefix } from "../../src/queue/index.js";
import { countExecutions } from "./agent-harness.js";
import { killHard, type NodeProcess, startNodeProcess, verifyChain } from "./chaos.js";
import { type CliProcess, startCli } from "./cli-process.js";
import { freePort } from "./free-port.js";
import { type RedisServerOptions, type RedisServerProcess, startRedisServer } from "./redis-server.js";

/** Options for {@link startChaosStack}. */
export interface ChaosStackOptions {
  /** Approver ids (mail `<id>@example.test`). */
  approvers: readonly string[];
  /** The scripted model's turns (YAML list), the same for every run. */
  script: unknown[];
  /** SMTP port the worker mails to; unset: mails go to the worker's log. */
  smtpPort?: number;
  concurrency?: number;
  redis?: RedisServerOptions;
}

/**
 * One chaos scenario's system, every part a real process: its own redis-server (AOF on), worker
 * processes (chaos-worker-main.ts) and HTTP servers (`echo-runner serve`), all under one key prefix.
 */
export interface ChaosStack {
  redis: RedisServerProcess;
  /** The test's own connection (reconnects across Redis restarts). */
  client: Redis;
  keyPrefix: string;
  dir: string;
  counterFile: string;
  publicUrl: string;
  queue: Queue;
  /** The approval store over the same keys, for reading requests. */
  store: ApprovalStore;
  /** Starts a worker process; `env` adds to its environment (e.g. LOG_LEVEL). */
  startWorker(env?: Record<string, string>): Promise<NodeProcess>;
  startHttp(): Promise<CliProcess>;
  /** Executions per idempotency key, from the counter file the test tools append to. */
  counts(): Promise<Map<string, number>>;
  /** The audit chain verifies; returns its length. */
  verifyAudit(): Promise<number>;
  stop(): Promise<void>;
}

export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  const redis = await startRedisServer(options.redis);
  const dir = await mkdtemp(join(tmpdir(), "echo-chaos-"));
  const keyPrefix = `chaos-${randomBytes(4).toString("hex")}`;
  const counterFile = join(dir, "counter.txt");
  const scriptFile = join(dir, "script.yaml");
  await writeFile(scriptFile, stringify(options.script));
  const httpPort = await freePort();
  const publicUrl = `http://127.0.0.1:${httpPort}`;
  await writeFile(
    join(dir, "echo.yaml"),
    stringify({
      redis: { key_prefix: keyPrefix },
      http: { port: httpPort, public_url: publicUrl },
      approvers: options.approvers.map((id) => ({ id, email: `${id}@example.test` })),
      logging: { level: "info", format: "json" },
    }),
  );
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  client.on("error", () => undefined);
  const queue = new Queue("agent", { connection: client, prefix: bullPrefix(keyPrefix) });
  queue.on("error", () => undefined); // Redis outages are part of the suite
  const store = new ApprovalStore({
    redis: client,
    keyPrefix,
    policy: { waitTimeoutMs: 3_600_000, approvers: [] },
  });
  const workers: NodeProcess[] = [];
  const servers: CliProcess[] = [];
  return {
    redis,
    client,
    keyPrefix,
    dir,
    counterFile,
    publicUrl,
    queue,
    store,
    async startWorker(env = {}) {
      const worker = startNodeProcess("test/helpers/chaos-worker-main.ts", {
        REDIS_URL: redis.url,
        KEY_PREFIX: keyPrefix,
        COUNTER_FILE: counterFile,
        SCRIPT_FILE: scriptFile,
        PUBLIC_URL: publicUrl,
        APPROVERS: options.approvers.join(","),
        CONCURRENCY: String(options.concurrency ?? 4),
        ...(options.smtpPort ? { SMTP_PORT: String(options.smtpPort) } : {}),
        ...env,
      });
      workers.push(worker);
      await worker.ready;
      return worker;
    },
    async startHttp() {
      const cli = startCli(["serve", "--config", join(dir, "echo.yaml")], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: redis.url },
      });
      servers.push(cli);
      await cli.waitForOutput(/echo-runner is running/, 120_000);
      return cli;
    },
    counts: () => countExecutions(counterFile),
    verifyAudit: () => verifyChain(client, keyPrefix),
    async stop() {
      for (const w of workers) await killHard(w.child);
      for (const s of servers) await killHard(s.child);
      await queue.close().catch(() => undefined);
      client.disconnect();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The approval link of a mail (`<publicUrl>/approvals/<id>?t=<token>`). */
export function linkInMail(mail: ParsedMail, publicUrl: string): string {
  const escaped = publicUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const link = new RegExp(`${escaped}/approvals/[0-9a-f]+\\?t=[A-Za-z0-9_-]{43}`).exec(mail.text ?? "")?.[0];
  if (!link) throw new Error(`no approval link in mail: ${mail.text}`);
  return link;
}

/** What a click over HTTP got back. */
export interface ClickResult {
  status: number;
  body: string;
}

/** The decision form of a pending request's page. */
export interface DecisionForm {
  action: URL;
  t: string;
  nonce: string;
}

/**
 * GET the link, as a browser opens it: the page and its form, or the answer when there is no form
 * (the request is no longer pending, or the link is not valid). Throws when the server cannot be
 * reached.
 */
export async function openLink(link: string): Promise<DecisionForm | ClickResult> {
  const page = await fetch(link);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<form method="post"'))
    return { status: page.status, body: html };
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? "";
  return { action: new URL(action, link), t: field("t"), nonce: field("nonce") };
}

/** POST the form with a decision, as pressing its button does. Throws when the server cannot be reached. */
export async function submitForm(form: DecisionForm, decision: "approve" | "deny"): Promise<ClickResult> {
  const response = await fetch(form.action, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ t: form.t, nonce: form.nonce, decision }).toString(),
  });
  return { status: response.status, body: await response.text() };
}

/** A person's click without a browser: open the link, then press the button. */
export async function clickOverHttp(link: string, decision: "approve" | "deny"): Promise<ClickResult> {
  const opened = await openLink(link);
  return "action" in opened ? submitForm(opened, decision) : opened;
}

/** Approvals of the stack by run id (every status). */
export async function approvalsByRun(store: ApprovalStore): Promise<Map<string, ApprovalRecord[]>> {
  const byRun = new Map<string, ApprovalRecord[]>();
  for (const record of await store.list({ limit: 1000 })) {
    byRun.set(record.runId, [...(byRun.get(record.runId) ?? []), record]);
  }
  return byRun;
}
