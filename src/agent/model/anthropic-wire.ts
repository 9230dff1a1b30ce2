import type Anthropic from "@anthropic-ai/sdk";
import { assertNever } from "../../shared/index.js";
import type { ChatMessage, FinishReason, ModelResponse, ModelToolSpec } from "./model-client.js";

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;

/** The parts of a Messages API request built from the runner's chat history. */
export interface AnthropicRequestParts {
  /** The system prompt (the system messages joined), undefined when there is none. */
  system: string | undefined;
  messages: MessageParam[];
  tools: Anthropic.Messages.Tool[];
}

/**
 * Maps the runner's chat history to the Messages API: system messages go to `system`; an assistant
 * turn's tool calls become `tool_use` blocks; the tool messages that answer them become one user
 * turn of `tool_result` blocks (the API wants the results of one assistant turn together, in the
 * next user turn). Consecutive user content is merged, because the API requires alternating roles.
 */
export function toAnthropicRequest(
  messages: readonly ChatMessage[],
  tools: readonly ModelToolSpec[],
): AnthropicRequestParts {
  const system: string[] = [];
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case "system":
        system.push(message.content);
        break;
      case "user":
        push("user", [{ type: "text", text: message.content }]);
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] = [];
        if (message.content) blocks.push({ type: "text", text: message.content });
        for (const call of message.toolCalls) {
          blocks.push({
            type: "tool_use",
            id: call.id,
            name: call.name,
            // The API only takes an object; raw text the model sent (never from this API, which
            // always sends an object) is kept under a key so the history stays faithful.
            input: typeof call.arguments === "string" ? { __unparsed: call.arguments } : call.arguments,
          });
        }
        // An empty assistant turn is invalid for the API; a placeholder keeps the turns alternating.
        push("assistant", blocks.length > 0 ? blocks : [{ type: "text", text: "(no content)" }]);
        break;
      }
      case "tool":
        // The API rejects empty text; a tool that printed nothing is said so.
        push("user", [
          {
            type: "tool_result",
            tool_use_id: message.toolCallId,
            content: message.content === "" ? "(no output)" : message.content,
          },
        ]);
        break;
      default:
        assertNever(message, "chat message role");
    }
  }
  return {
    system: system.length > 0 ? system.join("\n\n") : undefined,
    messages: out,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as Anthropic.Messages.Tool.InputSchema,
    })),
  };
}

/** Maps a Messages API response to a {@link ModelResponse}. */
export function fromAnthropicMessage(message: Anthropic.Messages.Message): ModelResponse {
  const text: string[] = [];
  const toolCalls: ModelResponse["message"]["toolCalls"] = [];
  for (const block of message.content ?? []) {
    if (block.type === "text") text.push(block.text);
    else if (block.type === "tool_use") {
      const input = block.input;
      toolCalls.push({
        id: block.id,
        name: block.name,
        arguments:
          input !== null && typeof input === "object" && !Array.isArray(input)
            ? (input as Record<string, unknown>)
            : JSON.stringify(input ?? null),
      });
    }
    // Thinking and server-tool blocks carry nothing the runner acts on.
  }
  const usage = message.usage;
  const cacheRead = usage?.cache_read_input_tokens ?? 0;
  const cacheWrite = usage?.cache_creation_input_tokens ?? 0;
  const prompt = (usage?.input_tokens ?? 0) + cacheRead + cacheWrite;
  return {
    message: { content: text.length > 0 ? text.join("") : null, toolCalls },
    finishReason: toFinishReason(message.stop_reason),
    usage: usage
      ? {
          promptTokens: prompt,
          completionTokens: usage.output_tokens,
          totalTokens: prompt + usage.output_tokens,
          ...(cacheRead > 0 ? { cachedTokens: cacheRead } : {}),
        }
      : null,
    ...(message.model ? { model: message.model.slice(0, 200) } : {}),
  };
}

function toFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    // Both mean the answer was cut: at max_tokens, or at the end of the context window.
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "refusal";
    default:
      return "unknown";
  }
}
