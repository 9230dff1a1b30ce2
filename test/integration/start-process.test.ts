import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { AuditTrail } from "../../src/journal/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { testPayload } from "../helpers/agent-harness.js";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

describe("echo-runner start runs worker, scheduler and HTTP server together", () => {
  it("fires a config schedule into a run that the worker completes, and completes an enqueued run", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-process-"));
    const keyPrefix = uniquePrefix("proc").replace(/:/g, "-");
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "ls" } }] },
        { content: "report filed" },
      ]),
    );
    await mkdir(join(dir, "ws"));
    const port = await freePort();
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        redis: { key_prefix: keyPrefix },
        http: { port, public_url: `http://127.0.0.1:${port}` },
        logging: { level: "info", format: "json" },
        models: { scripted: { provider: "scripted", script: "script.yaml" } },
        // The workspace is a directory of its own: one holding the runner's config is refused at start.
        agents: { nightly: { model: "scripted", task: "file the report", workspace: join(dir, "ws") } },
        schedules: [
          {
            id: "every-second",
            cron: "* * * * * *",
            timezone: "UTC",
            agent: "nightly",
            overlap: "skip",
            catch_up: "none",
            jitter_seconds: 0,
            enabled: true,
            owner: "ann",
            authorized: false,
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
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // A scheduled run: unattended, no cron grant, under the daemon security profile, so its exec
      // is denied and the run still finishes with its report.
      const findScheduled = async () =>
        (await queue.getJobs(["completed"])).find((j) => j.data.origin.kind === "schedule");
      await expect.poll(findScheduled, { timeout: 20_000, interval: 200 }).toBeDefined();
      const scheduled = await findScheduled();
      expect(scheduled?.returnvalue).toMatchObject({ status: "completed", finalAnswer: "report filed" });
      expect(scheduled?.data).toMatchObject({ unattended: true, channel: "cron", userId: "ann" });
      const entries = await new AuditTrail({ redis, keyPrefix }).readByTrace(scheduled?.data.traceId);
      expect(entries[0]?.entry).toMatchObject({ kind: "decision", tool: "exec", verdict: "deny" });

      const payload = testPayload({}, { workspace: join(dir, "ws") });
      await enqueueAgentRun(queue, payload);
      await expect
        .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 15_000 })
        .toBe("completed");
    } finally {
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain("stopped cleanly");
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      redis.disconnect();
    }
  }, 60_000);
});
