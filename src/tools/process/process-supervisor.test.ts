import { once } from "node:events";
import { resolve } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../shared/index.js";
import { eventually, silentLogger } from "../registry/builtin-tools.fixture.js";
import { isAlive } from "./process-group.js";
import { ProcessSupervisor } from "./process-supervisor.js";

const root = resolve(import.meta.dirname, "../../..");

/** Starts the fixture worker and waits for the pids it prints. */
async function fixtureWorker(mode: "exit" | "wait") {
  const worker = execa("node", ["bin/run-ts.js", "src/tools/process/process-supervisor.fixture.ts", mode], {
    cwd: root,
    reject: false,
    buffer: false,
  });
  const [chunk] = (await once(worker.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  const match = /pid (\d+) reaper (\d+)/.exec(chunk.toString());
  if (!match) throw new Error(`unexpected fixture output: ${chunk.toString()}`);
  return { worker, pid: Number(match[1]), reaper: Number(match[2]) };
}

function supervisor(options: { reaper?: boolean; exitHook?: boolean } = {}) {
  return new ProcessSupervisor({ clock: systemClock, logger: silentLogger, killGraceMs: 300, ...options });
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("ProcessSupervisor", () => {
  it("kills a worker's background processes when the worker is SIGKILLed (the reaper)", async () => {
    const { worker, pid, reaper } = await fixtureWorker("wait");
    expect(isAlive(pid)).toBe(true);
    expect(isAlive(reaper)).toBe(true);
    worker.kill("SIGKILL");
    await worker;
    expect(await eventually(() => !isAlive(pid), 10_000)).toBe(true);
    expect(await eventually(() => !isAlive(reaper), 10_000)).toBe(true);
  });

  it("kills a worker's background processes when the worker exits (the exit hook)", async () => {
    const { worker, pid } = await fixtureWorker("exit");
    const result = await worker;
    expect(result.exitCode).toBe(0);
    expect(await eventually(() => !isAlive(pid), 10_000)).toBe(true);
  });

  it("stops exactly one run's processes, leaving other runs' running", async () => {
    const sup = supervisor({ reaper: false, exitHook: false });
    try {
      const mine = sup.startBackground("run-a", { command: "sleep 30", cwd: "/", env, outputMaxChars: 100 });
      const other = sup.startBackground("run-b", { command: "sleep 30", cwd: "/", env, outputMaxChars: 100 });
      expect(await eventually(() => sup.liveCount("run-a") === 1 && sup.liveCount("run-b") === 1)).toBe(true);
      expect(await sup.stopAllForRun("run-a")).toBe(1);
      expect(isAlive(mine.pid as number)).toBe(false);
      expect(isAlive(other.pid as number)).toBe(true);
      expect(sup.listBackground("run-a")).toEqual([]);
      expect(sup.background("run-b", other.id)).toBe(other);
      expect(sup.background("run-a", other.id)).toBeUndefined();
    } finally {
      await sup.close();
    }
  });

  it("follows SIGTERM with SIGKILL after the grace period for a process that ignores it", async () => {
    const sup = supervisor({ reaper: false, exitHook: false });
    try {
      const stubborn = sup.startBackground("run", {
        command: "trap '' TERM; echo armed; sleep 30",
        cwd: "/",
        env,
        outputMaxChars: 100,
      });
      expect(await eventually(() => stubborn.read(0, 100).text === "armed\n")).toBe(true);
      const started = Date.now();
      await stubborn.stop();
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(stubborn.status()).toMatchObject({ state: "exited", signal: "SIGKILL" });
    } finally {
      await sup.close();
    }
  });

  it("ends its reaper on close", async () => {
    const sup = supervisor();
    const reaper = sup.reaperPid as number;
    expect(isAlive(reaper)).toBe(true);
    await sup.close();
    expect(await eventually(() => !isAlive(reaper))).toBe(true);
  });
});
