import { existsSync } from "node:fs";
import { chmod, cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { AuditTrail } from "../../src/journal/index.js";
import { type AgentQueue, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { type CliProcess, REPO_ROOT, startCli } from "../helpers/cli-process.js";
import { anthropicReply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import type { FakeReply, RecordedRequest } from "../helpers/fake-chat-server.js";
import { freePort } from "../helpers/free-port.js";

/**
 * The demo's task with `provider: anthropic`: the same config as config/demo.yaml, but its agent's
 * model is an Anthropic model served by a local server speaking the Messages API, which answers
 * with the demo playbook's turns as tool_use blocks. The run parks at its exec, is approved through
 * the printed link in Chromium, delegates to a sub-agent (also over the Messages API) and finishes.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

type Turn = { content?: string; tool_calls?: { name: string; arguments: Record<string, unknown> }[] };

/** The demo playbook as Messages API answers: the task picks the list, the assistant turns so far the turn. */
async function playbookServer() {
  const playbook = parse(await readFile(join(REPO_ROOT, "config", "demo-script.yaml"), "utf8")) as {
    tasks: Record<string, Turn[]>;
  };
  return startFakeAnthropicServer((request: RecordedRequest): FakeReply => {
    const body = request.body as { messages: { role: string; content: { type: string; text?: string }[] }[] };
    const firstUser = body.messages[0]?.content.find((b) => b.type === "text")?.text ?? "";
    const task = Object.keys(playbook.tasks).find((t) => firstUser.startsWith(t));
    if (!task) return anthropicReply.error(400, "invalid_request_error", `unknown task: ${firstUser}`);
    const turn = body.messages.filter((m) => m.role === "assistant").length;
    const step = playbook.tasks[task]![turn];
    if (!step) return anthropicReply.error(400, "invalid_request_error", `no turn ${turn} for ${task}`);
    const usage = { input_tokens: 1200, output_tokens: 80 };
    if (!step.tool_calls?.length) return anthropicReply.text(step.content ?? "", "end_turn", usage);
    return anthropicReply.toolUse(
      step.tool_calls.map((c, i) => ({
        id: `toolu_${request.index}_${i}`,
        name: c.name,
        input: c.arguments,
      })),
      step.content ?? null,
      usage,
    );
  });
}

/** The approval link printed for `runId` (the terminal notifier's mail names the run). */
function linkFor(output: string, runId: string): string | undefined {
  for (const block of output.split("APPROVAL NEEDED").slice(1)) {
    const mail = block.split("=".repeat(78))[0] ?? "";
    if (!mail.includes(`Run:       ${runId}`)) continue;
    return mail.match(/https?:\/\/\S+\/approvals\/\S+\?t=\S+/)?.[0];
  }
  return undefined;
}

describe("the demo's task with provider: anthropic", () => {
  it("runs end to end through the local Anthropic-format server: approval by link, sub-agent, final answer, usage", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "echo-demo-anthropic-"));
    // The sandbox runs commands as uid 65534 when the tests run as root: it must reach the workspace.
    await chmod(cwd, 0o755);
    const dataDir = join(cwd, "data");
    const workspace = join(cwd, "workspace");
    await cp(join(REPO_ROOT, "config", "demo-workspace"), workspace, { recursive: true });
    const server = await playbookServer();
    const demo = parse(await readFile(join(REPO_ROOT, "config", "demo.yaml"), "utf8")) as {
      models: unknown;
      agents: { demo: { model: string; workspace: string } };
      schedules: { enabled: boolean }[];
    };
    demo.models = {
      claude: {
        provider: "anthropic",
        base_url: server.baseUrl,
        model: "claude-demo",
        api_key_env: "ANTHROPIC_API_KEY",
        context_window: 200_000,
        max_output_tokens: 2048,
        price: { input: 3, output: 15, cached_input: 0.3 },
      },
    };
    demo.agents.demo.model = "claude";
    demo.agents.demo.workspace = workspace;
    demo.schedules[0]!.enabled = false; // fired by run-now only
    const configPath = join(cwd, "echo-runner.yaml");
    await writeFile(configPath, stringify(demo));
    const [httpPort, redisPort] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${httpPort}`;
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    const env = {
      PATH: process.env.PATH,
      HOME: cwd,
      USER: "demo-tester",
      ANTHROPIC_API_KEY: "sk-ant-demo-key",
      ECHO_RUNNER_HTTP__PORT: String(httpPort),
      ECHO_RUNNER_HTTP__PUBLIC_URL: publicUrl,
      ECHO_RUNNER_REDIS__URL: redisUrl,
      ECHO_RUNNER_LOGGING__FORMAT: "json",
    };
    const cli: CliProcess = startCli(["start", "--data-dir", dataDir, "--config", configPath], { cwd, env });
    let redis: Redis | undefined;
    let queue: AgentQueue | undefined;
    try {
      await cli.waitForOutput(/config schedules reconciled/, 60_000);
      redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
      redis.on("error", () => undefined);
      queue = openAgentQueue(redis, "echo");
      const runNow = startCli(["schedules", "run-now", "demo-report", "--config", configPath, "--json"], {
        cwd,
        env,
      });
      expect(await runNow.exited).toBe(0);
      const { runId } = JSON.parse(runNow.output()) as { runId: string };

      await cli.waitForOutput(new RegExp(`Run: +${runId}`), 60_000);
      await expect.poll(() => linkFor(cli.output(), runId), { timeout: 10_000 }).toBeDefined();
      // tar ran unattended in the sandbox under the schedule's grant; the recursive delete parks.
      // The run works on its layer: what it wrote reaches the workspace when it ends and lands.
      expect(existsSync(join(workspace, "report.md"))).toBe(false);
      expect(existsSync(join(workspace, "report.tar.gz"))).toBe(false);

      const page = await browser.newPage();
      await page.goto(linkFor(cli.output(), runId)!);
      expect(await page.locator("#args").textContent()).toContain("rm -rf drafts");
      await Promise.all([page.waitForURL("**/approvals/*/decision"), page.click("#approve")]);
      expect(await page.locator("#notice").textContent()).toContain("Your decision (approve) was recorded");
      await page.close();

      await expect
        .poll(async () => (await findRunJob(queue!, runId))?.getState(), { timeout: 150_000, interval: 250 })
        .toBe("completed");
      const finished = await findRunJob(queue, runId);
      expect(finished?.returnvalue).toMatchObject({ status: "completed" });
      expect(finished?.returnvalue.finalAnswer).toContain("archived as report.tar.gz");
      expect(finished?.returnvalue.landing).toMatchObject({ state: "landed" });
      expect(existsSync(join(workspace, "report.md"))).toBe(true);
      expect(existsSync(join(workspace, "report.tar.gz"))).toBe(true);
      // Eight parent turns (the sandbox demo adds the parked rm), each at 1,200 input / 80 output tokens (replays count nothing again).
      expect(finished?.returnvalue.usage).toMatchObject({ inputTokens: 8 * 1200, outputTokens: 8 * 80 });

      const entries = (await new AuditTrail({ redis, keyPrefix: "echo" }).readByTrace(runId)).map(
        (r) => r.entry,
      );
      const decisions = entries
        .filter((e) => e.kind === "decision")
        .map((e) => `${e.tool}:${e.kind === "decision" ? e.verdict : ""}`);
      // Every decision is in the trail; an allowed call's entry rides with its claim and arrives with
      // the run's next journal write, so the trail's order is not the calls' order.
      expect([...decisions].sort()).toEqual(
        [
          "list_dir:allow",
          "read_file:allow",
          "write_file:allow",
          "cronjob:deny",
          "exec:allow", // tar, in the sandbox under the schedule's grant
          "exec:ask", // rm -rf drafts: a person decides
          "exec:allow",
          "delegate_task:allow",
          "read_file:allow", // the sub-agent's
          // delegate_task once: the parent's replay reading the child's answer adds no decision
        ].sort(),
      );
      // Every request was a valid Messages API request (the server answers 400 otherwise) carrying
      // the key, and tool results went back as tool_result blocks.
      expect(server.requests.every((r) => r.path === "/v1/messages")).toBe(true);
      expect(
        JSON.stringify(server.requests.map((r) => r.headers.authorization ?? r.headers["x-api-key"])),
      ).toContain("sk-ant-demo-key");
      expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('"type":"tool_result"');
    } finally {
      await writeFile(await artifactPath("demo-anthropic-output.log"), cli.output()).catch(() => undefined);
      await queue?.close().catch(() => undefined);
      redis?.disconnect();
      if (cli.child.exitCode === null) {
        cli.child.kill("SIGTERM");
        await cli.exited;
      }
      await server.close();
    }
  }, 300_000);
});
