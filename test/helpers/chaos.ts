import { type ChildProcess, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { Job, type Queue } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import { inject } from "vitest";
import { verifyAudit } from "../../src/journal/index.js";
import { REPO_ROOT } from "./cli-process.js";
import { nodeEntryArgs } from "./node-entry.js";

/** A seeded PRNG (mulberry32) so a failing chaos run can be reproduced from its seed (CHAOS_SEED). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let printedSeed: number | undefined;

/**
 * The one seed of this run: CHAOS_SEED, else the suite's (chaos-seed-setup.ts picks one per run and
 * every file gets it), else a fresh one. Printed when first asked for, before anything can fail, with
 * the command that replays it; every random choice of a scenario comes from {@link prng} of it.
 */
export function chaosSeed(label = "chaos"): number {
  const fromEnv = process.env.CHAOS_SEED;
  let injected: number | undefined;
  try {
    injected = inject("chaosSeed");
  } catch {
    // not inside a vitest run that provides one
  }
  const seed =
    fromEnv !== undefined && fromEnv !== ""
      ? Number(fromEnv)
      : (injected ?? printedSeed ?? randomInt(1, 1_000_000));
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`CHAOS_SEED must be a whole number, not ${fromEnv}`);
  if (printedSeed !== seed) {
    printedSeed = seed;
    console.info(`[${label}] seed ${seed}; replay with CHAOS_SEED=${seed}`);
  }
  return seed;
}

/**
 * True when SIGKILLing the worker whose BullMQ id is `workerId` just now left a job it was running
 * behind: a job still active whose lock token is that worker's. Ask right after the process is gone
 * (the lock outlives it by its lease). A finished job has released its lock, so a kill between jobs
 * or after the last one answers false.
 */
export async function killLandedOnWork(
  redis: Redis | Cluster,
  queue: Queue,
  workerId: string,
): Promise<boolean> {
  const active = await queue.getActiveCount();
  if (active === 0) return false;
  const ids = await redis.lrange(queue.toKey("active"), 0, -1);
  for (const id of ids) {
    const token = await redis.get(queue.toKey(`${id}:lock`));
    if (token?.startsWith(`${workerId}:`)) return true;
  }
  return false;
}

/** The BullMQ worker id a `...-worker-main.ts` printed in its "worker ready <id>" line. */
export function readyWorkerId(output: string): string {
  const id = /worker ready (\S+)/.exec(output)?.[1];
  if (!id) throw new Error(`no worker id in the ready line:\n${output.slice(0, 2000)}`);
  return id;
}

/** A TypeScript entry point started as its own node process (compiled, see nodeEntryArgs), output collected. */
export interface NodeProcess {
  child: ChildProcess;
  /** Resolves when the process printed `readyLine`; rejects when it exits first. */
  ready: Promise<void>;
  /** Resolves when the process has exited, with the signal that ended it (null: it exited itself). */
  exited: Promise<NodeJS.Signals | null>;
  output(): string;
}

export function startNodeProcess(
  entry: string,
  env: Record<string, string>,
  readyLine = "worker ready",
): NodeProcess {
  const child = spawn(process.execPath, nodeEntryArgs(entry), {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const ready = new Promise<void>((done, fail) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (out.length < 200_000) out += chunk.toString();
      if (out.includes(readyLine)) done();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (out.length < 200_000) out += chunk.toString();
    });
    child.once("exit", (code, signal) =>
      fail(new Error(`${entry} exited (${code ?? signal}) before "${readyLine}":\n${out}`)),
    );
  });
  // A rejection nobody awaits (the process was killed later on purpose) is not an error.
  ready.catch(() => undefined);
  const exited = new Promise<NodeJS.Signals | null>((done) =>
    child.once("exit", (_code, signal) => done(signal)),
  );
  return { child, ready, exited, output: () => out };
}

/** SIGKILL (no shutdown code runs) and wait until the process is gone. */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGKILL");
  });
}

/** Polls `check` until it returns a value other than undefined, or throws naming `what` at the deadline. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The BullMQ state of each job ("missing" when it does not exist). */
export async function jobStates(queue: Queue, ids: readonly string[]): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  for (const id of ids) {
    const job = await Job.fromId(queue, id);
    states.set(id, job ? await job.getState() : "missing");
  }
  return states;
}

/** Waits until every job is completed; throws listing the states of those that are not. */
export async function waitAllCompleted(
  queue: Queue,
  ids: readonly string[],
  timeoutMs: number,
): Promise<void> {
  let last = new Map<string, string>();
  try {
    await waitFor(
      "every run to complete",
      async () => {
        last = await jobStates(queue, ids);
        return [...last.values()].every((s) => s === "completed") ? true : undefined;
      },
      timeoutMs,
      200,
    );
  } catch (err) {
    const notDone = [...last.entries()].filter(([, s]) => s !== "completed");
    throw new Error(`${(err as Error).message}; not completed: ${JSON.stringify(notDone)}`);
  }
}

/** Verifies the audit chain of a key prefix; throws with the first broken link. Returns the entry count. */
export async function verifyChain(redis: Redis | Cluster, keyPrefix: string): Promise<number> {
  const result = await verifyAudit({ redis, keyPrefix });
  if (!result.ok) throw new Error(`audit chain broken: ${JSON.stringify(result.brokenAt)}`);
  return result.checked;
}

/** Keys whose count is above one: side effects that ran twice. */
export function repeated(counts: Map<string, number>): [string, number][] {
  return [...counts.entries()].filter(([, n]) => n > 1);
}
