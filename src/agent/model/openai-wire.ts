import { z } from "zod";
import { assertNever } from "../../shared/index.js";
import {
  type ChatMessage,
  type FinishReason,
  type ModelResponse,
  type ModelToolSpec,
  parseToolArguments,
} from "./model-client.js";

/** Extra sampling settings sent with every request. */
export interface OpenAiSampling {
  temperature?: number;
  maxTokens?: number;
}

/** The JSON body of POST /chat/completions for one request. */
export function toWireRequest(
  model: string,
  messages: readonly ChatMessage[],
  tools: readonly ModelToolSpec[],
  sampling: OpenAiSampling,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: messages.map(toWireMessage) };
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.maxTokens !== undefined) body.max_tokens = sampling.maxTokens;
  return body;
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const wire: Record<string, unknown> = { role: "assistant", content: message.content };
      if (message.toolCalls.length > 0) {
        wire.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: {
            name: call.name,
            arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
          },
        }));
      }
      return wire;
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    default:
      return assertNever(message, "chat message role");
  }
}

// Servers add fields (logprobs, system_fingerprint, refusal); only what we read is checked.
const WireResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          refusal: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string().nullish(),
                function: z.object({ name: z.string().min(1), arguments: z.string().nullish() }),
              }),
            )
            .nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  model: z.string().nullish(),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
      total_tokens: z.number().int().nonnegative(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish(),
    })
    .nullish(),
});

/** Maps a parsed response body to a {@link ModelResponse}, or names what is wrong with it. */
export function fromWireResponse(
  json: unknown,
): { ok: true; response: ModelResponse } | { ok: false; problem: string } {
  const parsed = WireResponse.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join(".") : "(body)";
    return { ok: false, problem: `${where}: ${issue?.message}` };
  }
  const choice = parsed.data.choices[0]!;
  const toolCalls = (choice.message.tool_calls ?? []).map((call, index) => ({
    // Some compatible servers omit ids; a positional id is stable because responses are journalled.
    id: call.id || `call_${index}`,
    name: call.function.name,
    arguments: parseToolArguments(call.function.arguments ?? ""),
  }));
  const usage = parsed.data.usage;
  return {
    ok: true,
    response: {
      // A refusal comes as its own field with finish_reason "stop": report it as what it is.
      message: { content: choice.message.content ?? choice.message.refusal ?? null, toolCalls },
      finishReason: choice.message.refusal ? "refusal" : toFinishReason(choice.finish_reason),
      usage: usage
        ? {
            promptTokens: usage.prompt_tokens,
            completionTokens: usage.completion_tokens,
            totalTokens: usage.total_tokens,
            ...(usage.prompt_tokens_details?.cached_tokens
              ? { cachedTokens: usage.prompt_tokens_details.cached_tokens }
              : {}),
          }
        : null,
      ...(parsed.data.model ? { model: parsed.data.model.slice(0, 200) } : {}),
    },
  };
}

function toFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "content_filter":
    case "tool_calls":
      return reason;
    case "function_call":
      return "tool_calls";
    default:
      return "unknown";
  }
}
