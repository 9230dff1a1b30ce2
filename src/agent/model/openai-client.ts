import type { RunnerError } from "../../shared/index.js";
import { createHttpPoster } from "./http-post.js";
import type { ModelClient, ModelRequest, ModelResponse } from "./model-client.js";
import {
  contextTooLongError,
  invalidClientOption,
  modelError,
  snippet,
  statusModelError,
} from "./model-http-errors.js";
import { fromWireResponse, toWireRequest } from "./openai-wire.js";
import { parseRetryAfterMs } from "./retry-after.js";

/** Default time limit of one model request (connect, wait, read the body), ms. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

/** Options for {@link createOpenAiClient}. Values come from config; nothing is read from the environment. */
export interface OpenAiClientOptions {
  /** Base URL of the API including its version path, e.g. `https://api.openai.com/v1`. http or https. */
  baseUrl: string;
  /** Model name sent with every request. */
  model: string;
  /** Sent as `Authorization: Bearer <key>`; omit for local servers without auth. Never logged or put in errors. */
  apiKey?: string;
  /** Time limit of one request, ms. Default {@link DEFAULT_MODEL_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Sampling temperature; the server's default when omitted. */
  temperature?: number;
  /** `max_tokens` of each completion; the server's default when omitted. */
  maxTokens?: number;
  /** Extra request headers (e.g. an organisation header). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * A client for OpenAI-compatible chat-completions servers with tool calling. Every failure is a
 * RunnerError with a MODEL_* code (see `isRetryableModelErrorCode` for which are transient).
 */
export function createOpenAiClient(options: OpenAiClientOptions): ModelClient {
  const endpoint = resolveEndpoint(options.baseUrl);
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw invalidClientOption("OpenAI-compatible", "model", "a non-empty model name", options.model);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw invalidClientOption(
      "OpenAI-compatible",
      "timeoutMs",
      "a positive whole number of milliseconds",
      timeoutMs,
    );
  }
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  const where = `${endpoint.host}${endpoint.pathname}`;
  const poster = createHttpPoster(endpoint, headers);

  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      // One controller, a timer cleared with the answer and a listener removed with it. Not
      // AbortSignal.timeout/any: their timer stays for the whole timeoutMs (120 s) after the answer,
      // held through weak references and a finalization registry until a full GC collects the
      // signal — at 1,000 steps a second, 120,000 timers and their signals in the old generation.
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
      }, timeoutMs);
      timer.unref();
      const callerSignal = request.signal;
      const onCallerAbort = () => controller.abort(callerSignal?.reason);
      if (callerSignal?.aborted) onCallerAbort();
      else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
      const body = JSON.stringify(
        toWireRequest(options.model, request.messages, request.tools, {
          temperature: options.temperature,
          maxTokens: options.maxTokens,
        }),
      );
      let status: number;
      let text: string;
      let retryAfter: number | undefined;
      try {
        const answer = await poster.post(body, controller.signal);
        status = answer.status;
        retryAfter = parseRetryAfterMs((name) => answer.header(name));
        text = answer.text;
      } catch (cause) {
        if (callerSignal?.aborted) {
          throw modelError("MODEL_ABORTED", `Model request to ${where} was cancelled by the caller`, cause);
        }
        if (timedOut) {
          throw modelError(
            "MODEL_TIMEOUT",
            `Model server ${where} did not answer within ${timeoutMs} ms`,
            cause,
            {
              timeoutMs,
            },
          );
        }
        const failure = cause as { code?: string; cause?: { code?: string }; message?: string };
        const reason = failure.code ?? failure.cause?.code ?? failure.message;
        throw modelError("MODEL_UNAVAILABLE", `Cannot reach model server ${where}: ${reason}`, cause);
      } finally {
        clearTimeout(timer);
        callerSignal?.removeEventListener("abort", onCallerAbort);
      }
      if (status < 200 || status >= 300) throw httpError(where, options.model, status, text, retryAfter);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (cause) {
        throw modelError(
          "MODEL_RESPONSE_INVALID",
          `Model server ${where} answered HTTP ${status} with a body that is not JSON: ${snippet(text)}`,
          cause,
        );
      }
      const mapped = fromWireResponse(json);
      if (!mapped.ok) {
        throw modelError(
          "MODEL_RESPONSE_INVALID",
          `Model server ${where} answered with a response that is not a chat completion (${mapped.problem})`,
        );
      }
      return mapped.response;
    },
  };
}

function resolveEndpoint(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalidClientOption(
      "OpenAI-compatible",
      "baseUrl",
      "an absolute http(s) URL such as https://api.openai.com/v1",
      baseUrl,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidClientOption("OpenAI-compatible", "baseUrl", "an http: or https: URL", baseUrl);
  }
  if (url.username !== "" || url.password !== "") {
    throw invalidClientOption(
      "OpenAI-compatible",
      "baseUrl",
      "a URL without credentials (pass the key as apiKey)",
      "(redacted)",
    );
  }
  return new URL(`${url.pathname.replace(/\/+$/, "")}/chat/completions`, url);
}

function httpError(
  where: string,
  model: string,
  status: number,
  text: string,
  retryAfter: number | undefined,
): RunnerError {
  const detail = `HTTP ${status}: ${serverMessage(text)}`;
  const data: Record<string, unknown> = { status };
  if (retryAfter !== undefined) data.retryAfterMs = retryAfter;
  const failed = { where, model, detail, cause: undefined, data };
  if (status === 503 || status === 529) {
    return modelError("MODEL_OVERLOADED", `Model server ${where} is overloaded (${detail})`, undefined, data);
  }
  if (
    (status === 400 || status === 413) &&
    /context_length_exceeded|maximum context length|too many tokens|prompt is too long/i.test(text)
  ) {
    return contextTooLongError(failed);
  }
  if (status === 429) {
    return modelError(
      "MODEL_RATE_LIMITED",
      `Model server ${where} is rate limiting (${detail})`,
      undefined,
      data,
    );
  }
  return statusModelError(failed, status, [408]);
}

// The server's own error message when it sends the usual {"error":{"message":...}} body.
function serverMessage(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof json.error === "string" ? json.error : (json.error?.message ?? json.message);
    if (typeof message === "string") return snippet(message);
  } catch {
    // Not JSON: show the start of the body.
  }
  return snippet(text);
}
