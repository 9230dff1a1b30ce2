import { existsSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive } from "../../src/tools/process/process-group.js";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";

/**
 * Ctrl+C in the first moment of `npm start` (the demo, with its own redis-server): the runner has
 * caught the signal before it starts anything, so it finishes starting, stops everything in order
 * and exits 0, leaving no redis-server.
 */
describe("echo-runner start interrupted during start-up", () => {
  it("stops what it started and exits cleanly when Ctrl+C comes before the parts are up", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "echo-start-int-"));
    const dataDir = join(cwd, "data");
    const [httpPort, redisPort] = [await freePort(), await freePort()];
    const cli = startCli(["start", "--data-dir", dataDir], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        USER: "tester",
        ECHO_RUNNER_HTTP__PORT: String(httpPort),
        ECHO_RUNNER_HTTP__PUBLIC_URL: `http://127.0.0.1:${httpPort}`,
        ECHO_RUNNER_REDIS__URL: `redis://127.0.0.1:${redisPort}`,
        ECHO_RUNNER_LOGGING__FORMAT: "json",
      },
    });
    // The demo banner is printed after the config is read and before anything is started.
    await cli.waitForOutput(/DEMO MODE/, 30_000);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('"shutting down"');
    // It did start its redis-server (the start ran to its end), and stopped it.
    expect(cli.output()).toContain("started a local redis-server");
    const pidFile = join(dataDir, "redis", "redis.pid");
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined;
    if (pid !== undefined) await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
  }, 90_000);
});
