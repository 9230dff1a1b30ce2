import type { ToolExecutionMode } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { ModelToolCall } from "../model/model-client.js";

/** What the beforeToolBatch hook sees: one model turn's whole batch, before any call of it runs. */
export interface ToolBatchView {
  readonly payload: AgentJobPayload;
  /** 0-based model step of the run. */
  readonly step: number;
  /** The calls, in the order the model made them (arguments as the model gave them). */
  readonly calls: readonly ModelToolCall[];
  /** How the batch would run: `tools.execution` and the calls' isConcurrencySafe. */
  readonly mode: ToolExecutionMode;
}

/** The hook's answer: let the batch run (undefined or `{ veto: false }`), or veto all of it. */
export type ToolBatchVerdict =
  | undefined
  | { readonly veto: false }
  | { readonly veto: true; readonly reason: string };

/**
 * seed 002's `beforeToolBatch`: sees a whole batch and may veto it. A veto is a denial of every call
 * in the batch — audited like a gate denial (step 0) and journalled under each call's key, so a
 * replay returns the same denial without asking the hook again. The hook can only take away: it
 * never allows a call the policy or the gate would not. A hook that throws vetoes (fail closed).
 */
export type BeforeToolBatchHook = (batch: ToolBatchView) => ToolBatchVerdict | Promise<ToolBatchVerdict>;

/** The hook's answer as a veto reason, or undefined to run the batch. A throwing hook vetoes. */
export async function batchVeto(
  hook: BeforeToolBatchHook | undefined,
  batch: ToolBatchView,
): Promise<string | undefined> {
  if (!hook) return undefined;
  try {
    const verdict = await hook(batch);
    return verdict?.veto ? `the beforeToolBatch hook vetoed this batch: ${verdict.reason}` : undefined;
  } catch (err) {
    return `the beforeToolBatch hook failed, so the batch does not run: ${err instanceof Error ? err.message : String(err)}`;
  }
}
