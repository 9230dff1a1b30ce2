import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { AuditTrail } from "../../src/journal/index.js";
import { openAgentQueue } from "../../src/queue/index.js";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The sandbox's promise: under the default config (tools.exec.host: sandbox) plus
 * security.profile personal_cli and the schedule's owner in permissions.elevated.allow_from.cron,
 * a cron-authorised scheduled run runs `ls`, `git status` and `tar` unattended, in the sandbox,
 * with nobody asked — through `echo-runner start`, the real guard, gate, tools and bubblewrap.
 */
describe("a cron-authorised run in the sandbox", () => {
  it("runs ls, git status and tar unattended with nobody asked", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-sbx-cron-"));
    // As root, commands run as uid 65534, which must be able to reach the workspace (mkdtemp is 0700).
    await chmod(dir, 0o755);
    const ws = join(dir, "ws");
    await mkdir(ws);
    await writeFile(join(ws, "notes.md"), "# notes\n");
    const keyPrefix = uniquePrefix("sbxcron").replace(/:/g, "-");
    // The repository exists before the run: a run that makes one (`git init`) writes .git/HEAD,
    // config and hooks, which its landing asks a person about (docs/SANDBOX.md).
    execFileSync("git", ["init", "-q", ws]);
    const commands = ["ls", "git status --short", "tar -czf report.tar.gz notes.md"];
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        ...commands.map((command) => ({ tool_calls: [{ name: "exec", arguments: { command } }] })),
        { content: "archived" },
      ]),
    );
    const port = await freePort();
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        redis: { key_prefix: keyPrefix },
        http: { port, public_url: `http://127.0.0.1:${port}` },
        logging: { level: "info", format: "json" },
        security: { profile: "personal_cli" },
        permissions: { elevated: { allow_from: { cron: ["ann"] } } },
        models: { scripted: { provider: "scripted", script: "script.yaml" } },
        agents: { archiver: { model: "scripted", task: "archive the notes", workspace: ws } },
        schedules: [
          {
            id: "archive-every-second",
            cron: "* * * * * *",
            timezone: "UTC",
            agent: "archiver",
            overlap: "skip",
            catch_up: "none",
            jitter_seconds: 0,
            enabled: true,
            owner: "ann",
            authorized: true,
          },
        ],
      }),
    );
    const cli = startCli(["start", "--config", join(dir, "echo.yaml")], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl() },
    });
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const queue = openAgentQueue(redis, keyPrefix);
    try {
      await cli.waitForOutput(/echo-runner is running/);
      const findRun = async () =>
        (await queue.getJobs(["completed"])).find((j) => j.data.origin.kind === "schedule");
      await expect.poll(findRun, { timeout: 30_000, interval: 200 }).toBeDefined();
      const run = await findRun();
      expect(run?.returnvalue).toMatchObject({
        status: "completed",
        finalAnswer: "archived",
        landing: { state: "landed" },
      });
      expect(run?.data).toMatchObject({ unattended: true, channel: "cron", userId: "ann" });
      const entries = (await new AuditTrail({ redis, keyPrefix }).readByTrace(run?.data.traceId)).map(
        (e) => e.entry,
      );
      const decisions = entries.filter((e) => e.kind === "decision" && e.tool === "exec");
      expect(decisions).toHaveLength(3);
      for (const d of decisions) {
        expect(d).toMatchObject({ verdict: "allow", step: 4 });
        expect(JSON.stringify(d)).toContain("cron-authorised");
      }
      const executions = entries.filter((e) => e.kind === "execution" && e.tool === "exec");
      expect(executions).toHaveLength(3);
      for (const e of executions) expect(e).toMatchObject({ outcome: "success" });
      expect(existsSync(join(ws, "report.tar.gz"))).toBe(true);
      expect(existsSync(join(ws, ".git"))).toBe(true);
    } finally {
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      redis.disconnect();
    }
  }, 90_000);
});
