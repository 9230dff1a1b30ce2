import type { ToolExecutionMode } from "../../policy/index.js";

/**
 * Runs one model turn's tool calls. With `execution` parallel (the default) the batch runs in
 * parallel only when every call is concurrency-safe for its arguments; one unsafe call makes the
 * whole batch sequential, in call order (seed 002: a sequential tool taints the ordering of the
 * batch's side effects). With `execution` sequential (`tools.execution`) every batch runs in call
 * order. Results are always returned in call order.
 */
export async function runToolBatch<C, R>(
  calls: readonly C[],
  isConcurrencySafe: (call: C) => boolean,
  run: (call: C, index: number) => Promise<R>,
  execution: ToolExecutionMode = "parallel",
): Promise<{ results: R[]; mode: ToolExecutionMode }> {
  if (batchMode(calls, isConcurrencySafe, execution) === "parallel") {
    return { results: await Promise.all(calls.map((call, i) => run(call, i))), mode: "parallel" };
  }
  const results: R[] = [];
  for (const [i, call] of calls.entries()) results.push(await run(call, i));
  return { results, mode: "sequential" };
}

/** How a batch will run (see {@link runToolBatch}); the beforeToolBatch hook is told. */
export function batchMode<C>(
  calls: readonly C[],
  isConcurrencySafe: (call: C) => boolean,
  execution: ToolExecutionMode = "parallel",
): ToolExecutionMode {
  if (execution === "sequential") return "sequential";
  return calls.length > 1 && calls.every((call) => isConcurrencySafe(call)) ? "parallel" : "sequential";
}
