import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive } from "../../src/tools/process/process-group.js";
import { startLocalRedis } from "../../workers/local-redis.js";
import { freePort } from "../helpers/free-port.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";

/**
 * Nothing outlives the runner. The local redis-server has a parent-death signal,
 * so SIGKILL of the runner ends it; and a server an earlier runner left on the data dir (one started
 * without that signal) is stopped by the next start, which says so, before it starts its own.
 */
describe("the local redis-server's lifetime", () => {
  it("ends when the runner that started it is killed with SIGKILL", async () => {
    const dir = resolve(await mkdtemp(join(tmpdir(), "echo-redis-life-")));
    const url = `redis://127.0.0.1:${await freePort()}`;
    const runner = spawn(process.execPath, [...nodeEntryArgs("test/helpers/local-redis-main.ts"), url, dir], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((ready, failed) => {
      runner.stdout?.on("data", (d: Buffer) => d.toString().includes("ready") && ready());
      runner.once("exit", (code) => failed(new Error(`the runner exited with ${code}`)));
    });
    const pid = Number(readFileSync(join(dir, "redis.pid"), "utf8"));
    expect(isAlive(pid)).toBe(true);
    runner.kill("SIGKILL");
    await expect.poll(() => isAlive(pid)).toBe(false);
  });

  it("a server left on the data dir is stopped by the next start, which says so", async () => {
    const dir = resolve(await mkdtemp(join(tmpdir(), "echo-redis-life-")));
    const port = await freePort();
    // What an older runner left: a redis-server on this data dir with its pid file, no parent-death signal.
    const left = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--pidfile",
        join(dir, "redis.pid"),
        "--save",
        "",
      ],
      { stdio: "ignore", detached: true },
    );
    await expect
      .poll(() => readFileSync(join(dir, "redis.pid"), "utf8").trim(), { timeout: 10_000 })
      .toBe(String(left.pid));
    const local = await startLocalRedis(`redis://127.0.0.1:${port}`, dir);
    try {
      expect(local.staleStopped).toBe(left.pid);
      expect(isAlive(left.pid as number)).toBe(false);
      expect(Number(readFileSync(join(dir, "redis.pid"), "utf8"))).not.toBe(left.pid);
    } finally {
      await local.stop();
    }
  });
});
