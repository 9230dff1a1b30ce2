import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isAlive } from "../../src/tools/process/process-group.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";

/**
 * The test harness's redis-server (global-setup.ts) ends with the test run however that run ends:
 * an `npm test` interrupted or killed leaves no redis-server behind.
 */
describe("the test harness's redis-server", () => {
  it("ends when the process that started it is killed with SIGKILL", async () => {
    const run = spawn(process.execPath, nodeEntryArgs("test/helpers/test-redis-main.ts"), {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const pid = await new Promise<number>((ready, failed) => {
      run.stdout?.on("data", (d: Buffer) => {
        const match = /ready (\d+)/.exec(d.toString());
        if (match) ready(Number(match[1]));
      });
      run.once("exit", (code) => failed(new Error(`the harness exited with ${code}`)));
    });
    expect(isAlive(pid)).toBe(true);
    run.kill("SIGKILL");
    await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
  }, 60_000);
});
