import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startCli } from "../helpers/cli-process.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * A taken port is one line naming the setting that changes it — no stack — and
 * `start` exits with nothing left running.
 */
describe("echo-runner start on a taken port", () => {
  it("says which setting to change, in one line, and exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-port-taken-"));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await writeFile(
        join(dir, "echo.yaml"),
        stringify({
          redis: { key_prefix: uniquePrefix("port").replace(/:/g, "-") },
          http: { port, public_url: `http://127.0.0.1:${port}` },
          logging: { level: "warn", format: "json" },
        }),
      );
      const cli = startCli(["start", "--config", join(dir, "echo.yaml")], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, REDIS_URL: testRedisUrl() },
      });
      expect(await cli.exited).not.toBe(0);
      const lines = cli
        .output()
        .split("\n")
        .filter((l) => l.startsWith("echo-runner:"));
      expect(lines).toEqual([
        `echo-runner: HTTP_PORT_UNAVAILABLE: 127.0.0.1:${port} is already in use (another echo-runner, or another program): set http.port (env ECHO_RUNNER_HTTP__PORT) to a free port, or 0 to let the system pick one`,
      ]);
      expect(cli.output()).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  }, 60_000);
});
