import { z } from "zod";

/** One tool call the model asked for. */
export const ModelToolCall = z
  .object({
    /** Call id chosen by the model (or the client), echoed back in the tool message. */
    id: z.string().min(1),
    /** Tool name as the model wrote it; not yet checked against any catalog. */
    name: z.string().min(1),
    /**
     * The parsed arguments when the model sent a JSON object; otherwise the raw text it sent (so the
     * caller can report a validation error naming what the model wrote).
     */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  })
  .strict();
export type ModelToolCall = z.infer<typeof ModelToolCall>;

/** Roles of a chat message. */
export const CHAT_ROLES = ["system", "user", "assistant", "tool"] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/** One message of the conversation sent to the model. */
export const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }).strict(),
  z.object({ role: z.literal("user"), content: z.string() }).strict(),
  z
    .object({
      role: z.literal("assistant"),
      content: z.string().nullable(),
      toolCalls: z.array(ModelToolCall),
    })
    .strict(),
  z.object({ role: z.literal("tool"), toolCallId: z.string().min(1), content: z.string() }).strict(),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/** A tool as the model sees it: name, description and the JSON Schema of its parameters. */
export interface ModelToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the parameters object (the tool's TypeBox schema). */
  parameters: Record<string, unknown>;
}

/**
 * Why the model stopped. `length`: cut at the output limit (max_tokens); `refusal`: the model
 * declined (Anthropic `refusal`, OpenAI `message.refusal`); `content_filter`: the provider's filter
 * cut it. `unknown` stands for a missing or unrecognised reason from the server.
 */
export const FINISH_REASONS = [
  "stop",
  "tool_calls",
  "length",
  "content_filter",
  "refusal",
  "unknown",
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** Token usage of one completion. */
export const ModelUsage = z
  .object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative(),
    /**
     * Of `promptTokens`, how many were read from the provider's prompt cache (billed at the cached
     * price). Absent when the provider reports none (and in journals written before it existed).
     */
    cachedTokens: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ModelUsage = z.infer<typeof ModelUsage>;

/**
 * One model response. Plain JSON, so the agent loop journals it under `model:<step>` and validates
 * it with this schema when it replays it.
 */
export const ModelResponse = z
  .object({
    message: z.object({ content: z.string().nullable(), toolCalls: z.array(ModelToolCall) }).strict(),
    finishReason: z.enum(FINISH_REASONS),
    /** Null when the server (or the scripted client) reports none. */
    usage: ModelUsage.nullable(),
    /**
     * The model that answered, as the provider names it (it may differ from the one asked for, e.g.
     * a dated version); absent when the server says nothing (and in journals written before it).
     */
    model: z.string().min(1).max(200).optional(),
    /**
     * Set by the run loop when it journals the response (never by a client): the transient failures
     * retried before this answer, the run's active time since the previous step (ms, parked time
     * excluded), and when the answer arrived (ms since the epoch). Usage, time and cost budgets are
     * summed from these journalled fields, so a replay never counts a response twice.
     */
    retries: z.array(z.strictObject({ code: z.string(), waitMs: z.number().int().nonnegative() })).optional(),
    activeMs: z.number().int().nonnegative().optional(),
    at: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
    /** Bytes of the request as sent (after the context budget), to calibrate the token estimate. */
    sentBytes: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ModelResponse = z.infer<typeof ModelResponse>;

/** Input of {@link ModelClient.complete}. */
export interface ModelRequest {
  messages: readonly ChatMessage[];
  /** Tools the model may call; empty for none. */
  tools: readonly ModelToolSpec[];
  /** Cancels the request (job cancelled, worker shutting down). */
  signal?: AbortSignal;
}

/**
 * A chat model. Implementations: the OpenAI-compatible HTTP client, the Anthropic Messages client
 * and the scripted client.
 * Failures are RunnerErrors with a MODEL_* code; `shouldRetryModelError` says which are transient.
 */
export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * Parses tool-call arguments text the way every client does: a JSON object becomes that object,
 * empty text becomes `{}` (servers send "" for calls without arguments), anything else — invalid
 * JSON, or JSON that is not an object — stays the raw text.
 */
export function parseToolArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Not JSON: the raw text is returned below, for the caller to report.
  }
  return text;
}
