import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";
import { startRedisServer } from "../helpers/redis-server.js";

describe("echo-runner start against an external Redis that dies", () => {
  it("still stops on SIGTERM within its bound, exits 1 and says what was not flushed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-redis-gone-"));
    const server = await startRedisServer();
    const port = await freePort();
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        http: { port, public_url: `http://127.0.0.1:${port}` },
        logging: { level: "info", format: "json" },
      }),
    );
    const cli = startCli(["start", "--config", join(dir, "echo.yaml")], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: server.url },
    });
    try {
      await cli.waitForOutput(/echo-runner is running/, 90_000);
      // The Redis the runner was given disappears (no shutdown, no goodbye), then the operator stops it.
      await server.kill();
      await cli.waitForOutput(/redis connection error/, 30_000);
      const signalled = Date.now();
      cli.child.kill("SIGTERM");
      expect(await cli.exited).toBe(1);
      // REDIS_DOWN_GRACE_MS (2 s) for the parts plus per-step minimums and the process's own exit;
      // before the fix this waited forever. Generous for a loaded machine, far below "forever".
      expect(Date.now() - signalled).toBeLessThan(30_000);
      const output = cli.output();
      expect(output).toContain("Redis is unreachable at shutdown");
      expect(output).toContain("stopped, but not everything was flushed");
      expect(output).not.toContain("stopped cleanly");
    } finally {
      if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
      await server.stop();
    }
  }, 180_000);
});
