import { assertNever } from "../../shared/index.js";
import type { ModelResponse } from "../model/model-client.js";
import type { RunOutcome } from "./run-contract.js";

/**
 * The outcome of a response that ends the run whatever it asks for: one cut at the output limit
 * (its tool calls may be cut too, so none of them runs) or a refusal. Undefined: go on as usual.
 */
export function endedByFinishReason(
  response: ModelResponse,
  step: number,
  toolCalls: number,
): RunOutcome | undefined {
  const reason = response.finishReason;
  const text = response.message.content ?? "";
  switch (reason) {
    case "stop":
    case "tool_calls":
    case "unknown":
      return undefined;
    case "length":
      return {
        status: "truncated",
        finalAnswer: `the model's answer was cut at its output limit (max_tokens); none of its ${response.message.toolCalls.length} tool call(s) ran. Partial answer: ${text}`,
        steps: step + 1,
        toolCalls,
      };
    case "refusal":
    case "content_filter":
      return {
        status: "refused",
        finalAnswer: `the ${reason === "refusal" ? "model refused" : "provider's content filter stopped the answer"}: ${text}`,
        steps: step + 1,
        toolCalls,
      };
    default:
      return assertNever(reason, "finish reason");
  }
}
