import { isRunnerError } from "../../shared/index.js";
import type { ModelClient, ModelRequest, ModelResponse } from "./model-client.js";
import { shouldRetryModelError } from "./model-errors.js";

/** How the run loop retries a transient model failure (rate limit, overload, timeout, 5xx). */
export interface ModelRetryPolicy {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts: number;
  /** First backoff, ms; doubled each retry. Default 1000. */
  baseDelayMs: number;
  /** Longest backoff, ms. Default 30 000. */
  maxDelayMs: number;
  /**
   * Longest `retry-after` honoured in the run, ms (default 120 000). A server asking for longer ends
   * the attempt: the queue retries the job later, with no worker slot held meanwhile.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_MODEL_RETRY: ModelRetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/** One retried failure, journalled with the response that finally came. */
export interface ModelRetry {
  code: string;
  waitMs: number;
}

/** Options for {@link completeWithRetries}. */
export interface CompleteWithRetriesOptions {
  policy?: Partial<ModelRetryPolicy>;
  /** Waits `ms` (real timers in the worker; tests may shorten nothing — retry-after is honoured). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called before each wait (the run logs it). */
  onRetry?: (retry: ModelRetry & { attempt: number; message: string }) => void;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Calls the model, retrying transient failures with exponential backoff or the server's
 * `retry-after` (whichever is longer). A model call changes nothing in the world, so asking again is
 * safe. Returns the response with the retries it took (journalled with it); throws the last error
 * when the attempts run out, the error is not transient, or the server asks to wait too long.
 */
export async function completeWithRetries(
  model: ModelClient,
  request: ModelRequest,
  options: CompleteWithRetriesOptions = {},
): Promise<ModelResponse & { retries: ModelRetry[] }> {
  const policy = { ...DEFAULT_MODEL_RETRY, ...options.policy };
  const sleep = options.sleep ?? defaultSleep;
  const retries: ModelRetry[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await model.complete(request);
      return { ...response, retries };
    } catch (err) {
      if (!shouldRetryModelError(err) || attempt >= policy.maxAttempts || !isRunnerError(err)) throw err;
      const asked = (err.data as { retryAfterMs?: unknown }).retryAfterMs;
      const retryAfterMs = typeof asked === "number" ? asked : 0;
      if (retryAfterMs > policy.maxRetryAfterMs) throw err;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const waitMs = Math.max(backoff, retryAfterMs);
      retries.push({ code: err.code, waitMs });
      options.onRetry?.({ code: err.code, waitMs, attempt, message: err.message });
      await sleep(waitMs, request.signal);
    }
  }
}
