import type { StopReport } from "../src/runtime/index.js";

/** One shutdown step: a name, the work, and what is left undone if it does not finish. */
export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown>;
  /** What an unfinished step leaves behind, in words an operator can act on. */
  ifUnfinished: string;
}

/**
 * Runs shutdown steps in order, each bounded by what is left of `deadlineMs` (at least `minStepMs`,
 * so a slow early step cannot take every later step's chance to run). A step that times out or
 * throws is recorded and the next one runs: a Redis that died mid-run must not hang the process.
 */
export async function runShutdown(
  steps: readonly ShutdownStep[],
  options: { deadlineMs: number; minStepMs?: number; now?: () => number },
): Promise<StopReport> {
  const now = options.now ?? Date.now;
  const end = now() + options.deadlineMs;
  const minStep = options.minStepMs ?? 500;
  const notFlushed: string[] = [];
  for (const step of steps) {
    const budget = Math.max(end - now(), minStep);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((done) => {
      timer = setTimeout(() => done("timeout"), budget);
    });
    try {
      const outcome = await Promise.race([step.run().then(() => "done" as const), timedOut]);
      if (outcome === "timeout")
        notFlushed.push(`${step.name}: did not finish within ${budget} ms; ${step.ifUnfinished}`);
    } catch (err) {
      notFlushed.push(
        `${step.name}: failed (${err instanceof Error ? err.message : String(err)}); ${step.ifUnfinished}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
  return { clean: notFlushed.length === 0, notFlushed };
}
