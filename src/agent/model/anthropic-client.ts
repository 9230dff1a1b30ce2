import Anthropic from "@anthropic-ai/sdk";
import type { RunnerError } from "../../shared/index.js";
import { fromAnthropicMessage, toAnthropicRequest } from "./anthropic-wire.js";
import type { ModelClient, ModelRequest, ModelResponse } from "./model-client.js";
import {
  contextTooLongError,
  invalidClientOption,
  modelError,
  snippet,
  statusModelError,
} from "./model-http-errors.js";
import { DEFAULT_MODEL_TIMEOUT_MS } from "./openai-client.js";
import { parseRetryAfterMs } from "./retry-after.js";

/** `max_tokens` when config sets none: the Messages API requires one on every request. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Options for {@link createAnthropicClient}. Values come from config; nothing is read from the environment. */
export interface AnthropicClientOptions {
  /** Base URL of the API without the version path, e.g. `https://api.anthropic.com`. http or https. */
  baseUrl: string;
  /** Model name sent with every request, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Sent as `x-api-key`; never logged or put in errors. */
  apiKey: string;
  /** Time limit of one request, ms. Default 120 000. */
  timeoutMs?: number;
  /** `max_tokens` of each response. Default {@link DEFAULT_ANTHROPIC_MAX_TOKENS}. */
  maxTokens?: number;
  temperature?: number;
}

/**
 * A client for Anthropic's Messages API through the official SDK. The SDK's own retries are off
 * (`maxRetries: 0`): the run loop retries, journals each retry and honours `retry-after`. Every
 * failure is a RunnerError with a MODEL_* code.
 */
export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw invalidClientOption(
      "Anthropic",
      "baseUrl",
      "an absolute http(s) URL such as https://api.anthropic.com",
      options.baseUrl,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidClientOption("Anthropic", "baseUrl", "an http: or https: URL", options.baseUrl);
  }
  if (url.username !== "" || url.password !== "") {
    throw invalidClientOption(
      "Anthropic",
      "baseUrl",
      "a URL without credentials (pass the key as apiKey)",
      "(redacted)",
    );
  }
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw invalidClientOption("Anthropic", "model", "a non-empty model name", options.model);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const client = new Anthropic({
    apiKey: options.apiKey,
    // Only the configured key authenticates: never an ANTHROPIC_AUTH_TOKEN the SDK would read from
    // the worker's environment and send as a second credential.
    authToken: null,
    baseURL: options.baseUrl.replace(/\/+$/, ""),
    maxRetries: 0,
    timeout: timeoutMs,
  });
  const where = `${url.host}${url.pathname.replace(/\/+$/, "")}/v1/messages`;
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const parts = toAnthropicRequest(request.messages, request.tools);
      let message: Anthropic.Messages.Message;
      try {
        message = await client.messages.create(
          {
            model: options.model,
            max_tokens: options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
            messages: parts.messages,
            ...(parts.system !== undefined ? { system: parts.system } : {}),
            ...(parts.tools.length > 0 ? { tools: parts.tools } : {}),
            ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          },
          request.signal ? { signal: request.signal } : {},
        );
      } catch (err) {
        throw mapAnthropicError(err, where, options.model, timeoutMs);
      }
      if (message === null || typeof message !== "object" || !Array.isArray(message.content)) {
        throw modelError(
          "MODEL_RESPONSE_INVALID",
          `Model server ${where} answered with a body that is not a message`,
        );
      }
      return fromAnthropicMessage(message);
    },
  };
}

/** Maps an SDK error to the runner's MODEL_* codes (status first, then the error body's type). */
export function mapAnthropicError(
  err: unknown,
  where: string,
  model: string,
  timeoutMs: number,
): RunnerError {
  if (err instanceof Anthropic.APIUserAbortError) {
    return modelError("MODEL_ABORTED", `Model request to ${where} was cancelled by the caller`, err);
  }
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return modelError("MODEL_TIMEOUT", `Model server ${where} did not answer within ${timeoutMs} ms`, err, {
      timeoutMs,
    });
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return modelError("MODEL_UNAVAILABLE", `Cannot reach model server ${where}: ${err.message}`, err);
  }
  if (!(err instanceof Anthropic.APIError) || err.status === undefined) {
    const text = err instanceof Error ? err.message : String(err);
    return modelError("MODEL_RESPONSE_INVALID", `Model server ${where} answered unreadably: ${text}`, err);
  }
  const status = err.status;
  const type = err.type ?? "";
  const detail = `HTTP ${status} ${type}: ${snippet(err.apiMessage ?? err.message)}`;
  const data: Record<string, unknown> = { status, ...(type ? { type } : {}) };
  const retryAfterMs = err.headers ? parseRetryAfterMs((name) => err.headers?.get(name)) : undefined;
  if (retryAfterMs !== undefined) data.retryAfterMs = retryAfterMs;
  const failed = { where, model, detail, cause: err, data };
  if (status === 429 || type === "rate_limit_error") {
    return modelError("MODEL_RATE_LIMITED", `Model server ${where} is rate limiting (${detail})`, err, data);
  }
  if (status === 529 || status === 503 || type === "overloaded_error") {
    return modelError("MODEL_OVERLOADED", `Model server ${where} is overloaded (${detail})`, err, data);
  }
  if (
    status === 413 ||
    (status === 400 && /prompt is too long|context (window|length)|too many tokens/i.test(detail))
  ) {
    return contextTooLongError(failed);
  }
  return statusModelError(failed, status, [408, 504]);
}
