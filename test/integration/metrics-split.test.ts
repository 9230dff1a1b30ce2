import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { openAgentQueue } from "../../src/queue/index.js";
import { type CliProcess, startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { deleteKeysWithPrefix, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The split deployment: `echo-runner scheduler`, `worker` and `serve` as three processes against one
 * Redis. What the scheduler fired and what the worker ran and decided shows in the /metrics of the
 * serving process, which neither fired nor ran anything itself.
 */

const TOKEN = "split-metrics-token-0123456789-abcdefghij";

function series(text: string, pattern: RegExp): number {
  const line = text.split("\n").find((l) => pattern.test(l));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

describe("/metrics with worker, scheduler and server in separate processes", () => {
  it("the serving process reports the scheduler's firings and the worker's runs and decisions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-split-"));
    await mkdir(join(dir, "ws"));
    const keyPrefix = uniquePrefix("split").replace(/:/g, "-");
    await writeFile(
      join(dir, "script.yaml"),
      stringify([
        { tool_calls: [{ name: "exec", arguments: { command: "ls" } }] },
        { content: "report filed" },
      ]),
    );
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
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      REDIS_URL: testRedisUrl(),
      ECHO_RUNNER_API_TOKEN: TOKEN,
    };
    const parts: CliProcess[] = [];
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    try {
      // One after another: three processes compiling at once on a loaded machine start slowly.
      for (const part of ["serve", "worker", "scheduler"]) {
        const cli = startCli([part, "--config", join(dir, "echo.yaml")], { cwd: dir, env });
        parts.push(cli);
        await cli.waitForOutput(/echo-runner is running/, 90_000);
      }
      const scrape = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(res.status).toBe(200);
        return res.text();
      };
      // Scheduled runs are unattended without a cron grant: their exec is denied, they still finish.
      await expect
        .poll(async () => series(await scrape(), /^echo_runs_total\{outcome="completed"\}/), {
          timeout: 30_000,
          interval: 250,
        })
        .toBeGreaterThanOrEqual(1);
      const text = await scrape();
      expect(series(text, /^echo_schedule_ticks_total\{result="fired"\}/)).toBeGreaterThanOrEqual(1);
      expect(
        series(text, /^echo_tool_calls_total\{tool="exec",verdict="deny",step="\d+"\}/),
      ).toBeGreaterThanOrEqual(1);
      // The serving process ran nothing: no log line of it mentions a run or a fired tick.
      expect(parts[0]!.output()).not.toMatch(/run finished|scheduler running/);
    } finally {
      for (const p of parts) p.child.kill("SIGTERM");
      expect(await Promise.all(parts.map((p) => p.exited))).toEqual(parts.map(() => 0));
      const queue = openAgentQueue(redis, keyPrefix);
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await deleteKeysWithPrefix(redis, keyPrefix);
      redis.disconnect();
    }
  }, 360_000);
});
