import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startCli } from "../helpers/cli-process.js";
import { testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/** An unusable OTLP endpoint stops `start` with one line naming the variable, before anything runs. */
describe("echo-runner start with a bad OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("refuses to start, naming the variable and what is allowed, without a stack", async () => {
    const dir = await mkdtemp(join(tmpdir(), "echo-otel-start-"));
    await writeFile(
      join(dir, "echo.yaml"),
      stringify({
        redis: { key_prefix: uniquePrefix("otel-start").replace(/:/g, "-") },
        http: { port: 0 },
        logging: { level: "warn", format: "json" },
      }),
    );
    const cli = startCli(["start", "--config", join(dir, "echo.yaml")], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        REDIS_URL: testRedisUrl(),
        OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      },
    });
    expect(await cli.exited).not.toBe(0);
    const lines = cli
      .output()
      .split("\n")
      .filter((l) => l.startsWith("echo-runner:"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^echo-runner: TELEMETRY_CONFIG_INVALID: OTEL_EXPORTER_OTLP_ENDPOINT /);
    expect(lines[0]).toContain("http: or https: URL");
    expect(cli.output()).not.toMatch(/\n\s+at /);
    expect(cli.output()).not.toContain("agent worker running");
  }, 60_000);
});
