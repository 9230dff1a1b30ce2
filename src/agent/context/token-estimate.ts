import type { ChatMessage, ModelToolSpec } from "../model/model-client.js";

/**
 * Bytes per token assumed before the provider has reported any usage. English prose and JSON run
 * at 3.5–4.5 bytes per token in current tokenizers; 3.5 errs on the side of sending less.
 */
export const DEFAULT_BYTES_PER_TOKEN = 3.5;

/** Overhead of one message on the wire (role, ids, block framing), in tokens. */
const MESSAGE_OVERHEAD_TOKENS = 8;

/** UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

// A run measures its whole history before every model call; messages are never changed once made
// (a cut or pruned message is a new object), so each one is measured once.
const measuredMessages = new WeakMap<ChatMessage, number>();
const measuredSchemas = new WeakMap<object, number>();

/** Bytes a message puts on the wire, roughly (its text and its tool calls' names and arguments). */
export function messageBytes(message: ChatMessage): number {
  let bytes = measuredMessages.get(message);
  if (bytes === undefined) {
    bytes = measureMessage(message);
    measuredMessages.set(message, bytes);
  }
  return bytes;
}

function measureMessage(message: ChatMessage): number {
  switch (message.role) {
    case "assistant": {
      let bytes = utf8Bytes(message.content ?? "");
      for (const call of message.toolCalls) {
        bytes += utf8Bytes(call.id) + utf8Bytes(call.name);
        bytes += utf8Bytes(
          typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
        );
      }
      return bytes;
    }
    case "tool":
      return utf8Bytes(message.content) + utf8Bytes(message.toolCallId);
    default:
      return utf8Bytes(message.content);
  }
}

/** Bytes of the tool definitions sent with every request. */
export function toolsBytes(tools: readonly ModelToolSpec[]): number {
  let bytes = 0;
  for (const tool of tools)
    bytes += utf8Bytes(tool.name) + utf8Bytes(tool.description) + schemaBytes(tool.parameters);
  return bytes;
}

/** Bytes of a tool's parameter schema as JSON: a registered tool's schema object never changes. */
function schemaBytes(parameters: Record<string, unknown>): number {
  let bytes = measuredSchemas.get(parameters);
  if (bytes === undefined) {
    bytes = utf8Bytes(JSON.stringify(parameters));
    measuredSchemas.set(parameters, bytes);
  }
  return bytes;
}

/**
 * Estimates tokens from bytes. `bytesPerToken` is corrected from what the provider reported for
 * earlier requests of the run (see {@link calibratedBytesPerToken}), so the estimate follows the
 * real tokenizer without shipping one.
 */
export function estimateTokens(bytes: number, messages: number, bytesPerToken: number): number {
  return Math.ceil(bytes / bytesPerToken) + messages * MESSAGE_OVERHEAD_TOKENS;
}

/**
 * Bytes per token from the latest journalled request whose size and reported prompt tokens are both
 * known (`sentBytes` / `promptTokens`), never above the default (an estimate may only grow more
 * cautious). Pure over journalled data, so a replay calibrates the same.
 */
export function calibratedBytesPerToken(
  sample: { sentBytes: number; promptTokens: number } | undefined,
): number {
  if (!sample || sample.promptTokens <= 0 || sample.sentBytes <= 0) return DEFAULT_BYTES_PER_TOKEN;
  return Math.min(DEFAULT_BYTES_PER_TOKEN, Math.max(1, sample.sentBytes / sample.promptTokens));
}
