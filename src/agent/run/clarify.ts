import { Type } from "typebox";
import type { GateCall } from "../../gate/index.js";
import { type AnyTool, defineTool, type ToolResult, toolFailure, toolSuccess } from "../../tools/index.js";
import { approvalAnswered, ParkSignal } from "./park-signal.js";
import type { RunScope } from "./run-scope.js";

const ClarifyParams = Type.Object(
  { question: Type.String({ minLength: 1, maxLength: 4000, description: "The question for a person" }) },
  { additionalProperties: false },
);

/**
 * clarify: ask a person a question and wait for the answer without holding a worker. It reuses the
 * approval mechanism: the question goes out as a request with its link; the person answers in the
 * comment and approves (answer) or denies (declines); the answer is the tool result.
 */
export function createClarifyTool(): AnyTool {
  return defineTool({
    name: "clarify",
    description: "Ask a person a clarifying question and wait for the answer",
    parameters: ClarifyParams,
    execute: async () =>
      toolFailure("internal", "clarify is carried out by the run loop and cannot be invoked directly"),
  });
}

/**
 * The answer to a clarify call, or a ParkSignal while nobody has answered. A child run cannot ask
 * (nobody watches it); a denial or an expiry is an answer the model can act on, not an error.
 */
export async function clarifyResult(scope: RunScope, key: string, call: GateCall): Promise<ToolResult> {
  const { deps, payload } = scope;
  if (payload.parentExecutionId !== null) {
    return toolFailure("denied", "a child run cannot ask a person; answer from what you have or finish");
  }
  const asked = {
    runId: payload.runId,
    idempotencyKey: key,
    tool: call.tool,
    argsHash: call.argsHash,
    agentId: payload.agentId,
  };
  const state = await deps.approvals.lookup(asked);
  const answered = approvalAnswered(deps.approvals, asked);
  switch (state.status) {
    case "approved":
      return toolSuccess(state.comment || "(the person answered without words)", {
        answeredBy: state.approver,
      });
    case "denied":
      return toolSuccess(`the person declined to answer: ${state.reason}`);
    case "expired":
      return toolSuccess("nobody answered before the deadline");
    case "cancelled":
      return toolFailure("cancelled", "the question was cancelled");
    case "pending":
      throw new ParkSignal(state.deadline, "waiting for an answer", answered);
    case "none": {
      const { wakeAt } = await deps.approvals.register({
        kind: "clarify",
        payload,
        jobId: scope.jobId,
        idempotencyKey: key,
        call,
        decision: undefined,
        reason: `The agent asks: ${String(call.args.question)} (answer in the comment, then approve; deny to decline)`,
      });
      throw new ParkSignal(wakeAt, "waiting for an answer", answered);
    }
  }
}
