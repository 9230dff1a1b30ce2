/**
 * Runs one model turn's tool calls. The batch runs in parallel only when every call is
 * concurrency-safe for its arguments; one unsafe call makes the whole batch sequential, in call
 * order (seed 002: a sequential tool taints the ordering of the batch's side effects). Results are
 * always returned in call order.
 */
export async function runToolBatch<C, R>(
  calls: readonly C[],
  isConcurrencySafe: (call: C) => boolean,
  run: (call: C, index: number) => Promise<R>,
): Promise<{ results: R[]; mode: "parallel" | "sequential" }> {
  if (calls.length > 1 && calls.every((call) => isConcurrencySafe(call))) {
    return { results: await Promise.all(calls.map((call, i) => run(call, i))), mode: "parallel" };
  }
  const results: R[] = [];
  for (const [i, call] of calls.entries()) results.push(await run(call, i));
  return { results, mode: "sequential" };
}
