/** Backoff of notification sends. */
export interface RetryOptions {
  /** Tries in all, >= 1. Default 5. */
  attempts?: number;
  /** Wait before the second try, ms; doubled each time. Default 500. */
  baseDelayMs?: number;
  /** Longest wait between tries, ms. Default 30 000. */
  maxDelayMs?: number;
  /** True for an error no further try can fix (thrown at once). Default: none. */
  giveUp?: (err: unknown) => boolean;
  /** How to wait (tests pass one that records the delays). Default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `task` until it succeeds or the tries run out, waiting base·2^n (capped) between tries, with
 * up to 20 % jitter so many senders retrying one SMTP server do not hit it in step. Throws the last
 * error.
 */
export async function withRetry<T>(task: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const base = options.baseDelayMs ?? 500;
  const max = options.maxDelayMs ?? 30_000;
  const sleep = options.sleep ?? timerSleep;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    try {
      return await task();
    } catch (err) {
      lastError = err;
      if (options.giveUp?.(err)) break;
      if (attempt + 1 < attempts) {
        const delay = Math.min(max, base * 2 ** attempt);
        await sleep(Math.round(delay * (1 + Math.random() * 0.2)));
      }
    }
  }
  throw lastError;
}
