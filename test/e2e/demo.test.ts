import { existsSync } from "node:fs";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditTrail, type ToolAuditEntry } from "../../src/journal/index.js";
import { type AgentQueue, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { ScheduleStore } from "../../src/scheduler/index.js";
import { artifactPath, launchChromium } from "../helpers/browser.js";
import { type CliProcess, REPO_ROOT, startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";

/**
 * The newcomer's two minutes: `npm start` on a fresh clone (no config of their own, no REDIS_URL,
 * no SMTP) runs the demo; its run parks for approval and prints the mail with its link; the link
 * opened in a real browser approves it; the run finishes. Then SIGTERM stops everything cleanly
 * (the local redis-server too), and a restart on the same data dir finds the schedule and the run.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const DEMO_CONFIG = join(REPO_ROOT, "config", "demo.yaml");

/** The printed approval mail of `runId` (the terminal notifier's mail names the run). */
function mailFor(output: string, runId: string): string | undefined {
  for (const block of output.split("APPROVAL NEEDED").slice(1)) {
    const mail = block.split("=".repeat(78))[0] ?? "";
    if (mail.includes(`Run:       ${runId}`)) return mail;
  }
  return undefined;
}

/** The approval link printed for `runId`. */
function linkFor(output: string, runId: string): string | undefined {
  return mailFor(output, runId)?.match(/https?:\/\/\S+\/approvals\/\S+\?t=\S+/)?.[0];
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the demo that npm start runs", () => {
  it("parks for approval, is approved through the printed link in Chromium, finishes, and survives a clean restart", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "echo-demo-"));
    // As root the sandbox runs commands as uid 65534, which must reach the workspace (mkdtemp is 0700).
    await chmod(cwd, 0o755);
    const dataDir = join(cwd, "fresh-data");
    const [httpPort, redisPort] = [await freePort(), await freePort()];
    const publicUrl = `http://127.0.0.1:${httpPort}`;
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    // No REDIS_URL and no SMTP: start runs its own redis-server (on a free port here) and prints mails.
    const env = {
      PATH: process.env.PATH,
      HOME: cwd,
      USER: "demo-tester",
      ECHO_RUNNER_HTTP__PORT: String(httpPort),
      ECHO_RUNNER_HTTP__PUBLIC_URL: publicUrl,
      ECHO_RUNNER_REDIS__URL: redisUrl,
      ECHO_RUNNER_LOGGING__FORMAT: "json",
    };
    const start = () => startCli(["start", "--data-dir", dataDir], { cwd, env });
    let cli: CliProcess = start();
    // Clients of the runner's own redis-server, made once it is up (and again after the restart).
    let redis = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
    let queue: AgentQueue | undefined;
    const connect = () => {
      redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
      redis.on("error", () => undefined);
      queue = openAgentQueue(redis, "echo");
      return { redis, queue };
    };
    try {
      await cli.waitForOutput(/config schedules reconciled/, 60_000);
      expect(cli.output()).toContain("DEMO MODE: using the demo configuration config/demo.yaml");
      // The config is named by its real path, not through the build's dist/config link.
      expect(cli.output()).toContain(JSON.stringify(DEMO_CONFIG));
      expect(cli.output()).not.toContain("dist/config/demo.yaml");
      // A one-time operator sign-in for /admin, which takes it.
      const adminToken = /one-time operator token: (\S+)/.exec(cli.output())?.[1];
      expect(adminToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cli.output()).toContain(`sign in at ${publicUrl}/admin as demo-approver`);
      const signIn = await fetch(`${publicUrl}/admin/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: adminToken ?? "" }).toString(),
        redirect: "manual",
      });
      expect(signIn.status).toBe(303);
      const cookie = signIn.headers.get("set-cookie")?.split(";")[0] ?? "";
      const dashboard = await fetch(`${publicUrl}/admin`, { headers: { cookie } });
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain("demo-approver");
      expect(cli.output()).toContain("started a local redis-server");
      const { queue: agentQueue } = connect();
      const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
      expect(redisPid).toBeGreaterThan(0);

      // Fire the demo schedule now, as the banner says, instead of waiting for the minute: with no
      // configuration of one's own the command reaches the demo that start runs here, and says so.
      const runNow = startCli(["schedules", "run-now", "demo-report", "--json"], { cwd, env });
      expect(await runNow.exited).toBe(0);
      expect(runNow.output()).toContain("using the demo configuration config/demo.yaml");
      const { runId } = JSON.parse(runNow.output().slice(runNow.output().indexOf("{"))) as { runId: string };

      // tar ran unattended in the sandbox; the run parks at `rm -rf drafts`; the mail, link
      // included, is printed as plain text.
      await cli.waitForOutput(new RegExp(`Run: +${runId}`), 60_000);
      await expect.poll(() => linkFor(cli.output(), runId), { timeout: 10_000 }).toBeDefined();
      const link = linkFor(cli.output(), runId)!;
      expect(link.startsWith(`${publicUrl}/approvals/`)).toBe(true);
      // The mail states the schedule's grant as it is, lists the finding apart from the reason,
      // says what the call does and what exists at the path it names (the demo has no drafts/).
      const mail = mailFor(cli.output(), runId)!;
      expect(mail).toContain(
        "the schedule's cron grant covers only unflagged calls, and this call is flagged",
      );
      expect(mail).not.toContain("without a cron grant");
      expect(mail).toMatch(/^Flags: +soft\.recursive-delete$/m);
      expect(mail).toMatch(/^Effect: +Deletes files in the workspace\.$/m);
      expect(mail).toContain("What the command names holds now:\n  drafts: missing");
      // The mail is printed before the job has moved to delayed: wait for the state, bounded.
      await expect
        .poll(async () => (await findRunJob(agentQueue, runId))?.getState(), {
          timeout: 30_000,
          interval: 100,
        })
        .toBe("delayed");
      // The run works on its layer: nothing it wrote is in the workspace until it ends and lands.
      const workspace = join(dataDir, "demo-workspace");
      expect(existsSync(join(workspace, "report.md"))).toBe(false);
      expect(existsSync(join(workspace, "report.tar.gz"))).toBe(false);

      const page = await browser.newPage();
      await page.goto(link);
      const shown = await page.locator("#args").textContent();
      expect(shown).toContain("rm -rf drafts");
      expect(shown).toContain('"execHost": "sandbox"');
      await page.screenshot({ path: await artifactPath("demo-approval.png"), fullPage: true });
      await Promise.all([page.waitForURL("**/approvals/*/decision"), page.click("#approve")]);
      expect(await page.locator("#notice").textContent()).toContain("Your decision (approve) was recorded");
      await page.close();

      // Resumed: the approved exec runs, the sub-agent checks the report, the run completes. Under
      // 50 s: the child's end wakes its parent even when it lands while the parent is still parking;
      // a regression of that leaves the parent to its own re-check (childRecheckMs, 60 s) and fails.
      await expect
        .poll(async () => (await findRunJob(agentQueue, runId))?.getState(), {
          timeout: 50_000,
          interval: 250,
        })
        .toBe("completed");
      const finished = await findRunJob(agentQueue, runId);
      expect(finished?.returnvalue).toMatchObject({ status: "completed" });
      expect(finished?.returnvalue.finalAnswer).toContain("archived as report.tar.gz");
      expect(finished?.returnvalue.landing).toMatchObject({ state: "landed" });
      expect(existsSync(join(workspace, "report.md"))).toBe(true);
      expect(existsSync(join(workspace, "report.tar.gz"))).toBe(true);
      const trail = new AuditTrail({ redis, keyPrefix: "echo" });
      const entries = (await trail.readByTrace(runId))
        .map((r) => r.entry)
        .filter((e): e is ToolAuditEntry => e.kind !== "operator");
      const decisions = entries
        .filter((e) => e.kind === "decision")
        .map((e) => `${e.tool}:${e.kind === "decision" ? e.verdict : ""}`);
      // The trail holds every decision; an allowed call's entry rides with its claim and reaches
      // the trail with the run's next journal write, so the trail's order is not the calls' order.
      expect([...decisions].sort()).toEqual(
        [
          "list_dir:allow",
          "read_file:allow",
          "cronjob:deny",
          "write_file:allow",
          "exec:ask", // rm -rf drafts: parks for a person
          "exec:allow", // tar, unattended in the sandbox under the cron grant
          "delegate_task:allow", // once: the parent's replay reading the child's answer adds none
          "exec:allow",
          "read_file:allow", // the sub-agent's
        ].sort(),
      );
      const delegations = entries.filter((e) => e.tool === "delegate_task" && e.runId === runId);
      expect(delegations.map((e) => e.kind)).toEqual(["decision", "execution"]);
      const child = entries.find((e) => e.tool === "read_file" && e.runId !== runId);
      expect(child?.runId).toMatch(/^child-/);
      const execAllows = entries.filter(
        (e) => e.kind === "decision" && e.tool === "exec" && e.verdict === "allow",
      );
      expect(execAllows).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ approvalSource: "auto", step: 4 }),
          expect.objectContaining({ approvalSource: "human" }),
        ]),
      );

      // A clean stop: exit 0, the local redis-server gone.
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain("stopped cleanly");
      await expect.poll(() => pidAlive(redisPid), { timeout: 10_000 }).toBe(false);
      await agentQueue.close();
      redis.disconnect();

      // A restart on the same data dir finds the schedule, the finished run and its audit trail.
      await writeFile(await artifactPath("demo-start-output-first.log"), cli.output());
      cli = start();
      await cli.waitForOutput(/config schedules reconciled/, 60_000);
      expect(cli.output()).toMatch(/"unchanged":\["demo-report"\]/);
      const { queue: queueAgain } = connect();
      const schedule = await new ScheduleStore({ redis, keyPrefix: "echo" }).get("demo-report");
      expect(schedule?.schedule.owner).toBe("demo-operator");
      const again = await findRunJob(queueAgain, runId);
      expect(await again?.getState()).toBe("completed");
      expect(again?.returnvalue.finalAnswer).toContain("archived as report.tar.gz");
      expect((await new AuditTrail({ redis, keyPrefix: "echo" }).readByTrace(runId)).length).toBe(
        entries.length,
      );
      const verify = startCli(["audit", "verify"], { cwd, env });
      expect(await verify.exited).toBe(0);
    } finally {
      // The runner's whole terminal output, for whoever reads a failure.
      await writeFile(await artifactPath("demo-start-output.log"), cli.output()).catch(() => undefined);
      await queue?.close().catch(() => undefined);
      redis.disconnect();
      if (cli.child.exitCode === null) {
        cli.child.kill("SIGTERM");
        expect(await cli.exited).toBe(0);
      }
    }
  }, 300_000);
});
