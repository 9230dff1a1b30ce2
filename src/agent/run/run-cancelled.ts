import { RunnerError } from "../../shared/index.js";

/**
 * Stops the run when its worker was told it is cancelled (the run's AbortSignal): between steps and
 * right after an interrupted call, never leaving a call's result recorded as if it had finished.
 */
export function throwIfCancelled(signal: AbortSignal | undefined, runId: string): void {
  if (signal?.aborted) {
    throw new RunnerError("RUN_CANCELLED", `run ${runId} was cancelled by an operator; it stops here`, {
      data: { runId },
    });
  }
}
