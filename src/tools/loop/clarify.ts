import { Type } from "typebox";
import type { AnyTool } from "../../catalog/index.js";
import { type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { defineLoopTool, isFailure, runControlOf } from "./loop-tool.js";

const ClarifyParams = Type.Object(
  { question: Type.String({ minLength: 1, maxLength: 4000, description: "The question for a person" }) },
  { additionalProperties: false },
);

/**
 * clarify: ask a person a question and wait for the answer without holding a worker. The run loop
 * reuses the approval mechanism: the question goes out as a request with its link; the person
 * answers in the comment and approves (answer) or denies (declines); the answer is the tool result.
 * A child run cannot ask (nobody watches it); a denial or an expiry is an answer the model can act
 * on, not an error.
 */
export function createClarifyTool(): AnyTool {
  return defineLoopTool({
    name: "clarify",
    description: "Ask a person a clarifying question and wait for the answer",
    parameters: ClarifyParams,
    execute: async (args, ctx): Promise<ToolResult> => {
      const control = runControlOf("clarify", ctx);
      if (isFailure(control)) return control;
      if (ctx.parentExecutionId !== null) {
        return toolFailure("denied", "a child run cannot ask a person; answer from what you have or finish");
      }
      const answer = await control.ask(args.question);
      switch (answer.kind) {
        case "answered":
          return toolSuccess(answer.text || "(the person answered without words)", {
            answeredBy: answer.answeredBy,
          });
        case "declined":
          return toolSuccess(`the person declined to answer: ${answer.reason}`);
        case "expired":
          return toolSuccess("nobody answered before the deadline");
        case "cancelled":
          return toolFailure("cancelled", "the question was cancelled");
      }
    },
  });
}
