import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startCli } from "../helpers/cli-process.js";
import { freePort } from "../helpers/free-port.js";

describe("echo-runner start", () => {
  it("starts a local redis-server when REDIS_URL is unset, serves /healthz, and stops cleanly on SIGTERM", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "echo-start-"));
    const [httpPort, redisPort] = [await freePort(), await freePort()];
    const cli = startCli(["start"], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        ECHO_RUNNER_HTTP__PORT: String(httpPort),
        ECHO_RUNNER_REDIS__URL: `redis://127.0.0.1:${redisPort}`,
        ECHO_RUNNER_LOGGING__FORMAT: "json",
      },
    });
    // Generous: tsx compiles the whole runner at start, which is slow on a loaded CI machine.
    await cli.waitForOutput(/echo-runner is running/, 90_000);
    expect(cli.output()).toContain("started a local redis-server");
    const health = await fetch(`http://127.0.0.1:${httpPort}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, redis: "up" });
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain("stopped cleanly");
    expect(await readdir(join(cwd, "data", "redis"))).toContain("appendonlydir");
  }, 120_000);

  it("says how to get Redis when redis-server is not on PATH", async () => {
    const cwd = await mkdtemp(join(tmpdir(), "echo-start-"));
    const cli = startCli(["start"], {
      cwd,
      env: { PATH: "/nonexistent", HOME: cwd, ECHO_RUNNER_HTTP__PORT: String(await freePort()) },
    });
    expect(await cli.exited).toBe(1);
    expect(cli.output()).toContain("REDIS_BINARY_MISSING");
    expect(cli.output()).toContain("apt-get install redis-server");
    expect(cli.output()).toContain("docker compose up");
    expect(cli.output()).toContain("REDIS_URL=");
  }, 120_000);
});
