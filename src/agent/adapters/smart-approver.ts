import type { SmartApprover } from "../../gate/index.js";
import type { ModelClient } from "../model/model-client.js";

/** Smart approval through a chat model: one completion, no tools, the reply's text. */
export function smartApproverFromModel(client: ModelClient, timeoutMs = 15_000): SmartApprover {
  return {
    async ask(prompt) {
      const response = await client.complete({
        messages: [
          { role: "system", content: prompt.system },
          { role: "user", content: prompt.user },
        ],
        tools: [],
        signal: AbortSignal.timeout(timeoutMs),
      });
      return response.message.content ?? "";
    },
  };
}
