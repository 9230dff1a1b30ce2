import { type ToolFailure, toolFailure } from "../catalog/index.js";
import type { HostPolicy } from "./web/web-ports.js";

/** The HTTP client of provider calls (search and media APIs); `globalThis.fetch` in production. */
export type FetchFn = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** How one provider call is made. */
export interface ProviderCallOptions {
  readonly fetch: FetchFn;
  /** `execution.network_policy` applies to provider hosts too (restricted: allow-listed only). */
  readonly hostPolicy: HostPolicy;
  readonly timeoutMs: number;
  /** Names the call in messages ("the search provider brave"). */
  readonly what: string;
}

/** A provider's answer, or the failure result that explains why there is none. */
export type ProviderAnswer = { ok: true; response: Response } | { ok: false; result: ToolFailure };

/**
 * Calls an operator-configured provider endpoint (not an agent-chosen URL, so no SSRF check; the
 * network policy still applies). Errors become results: the network policy refusing the host is
 * `denied`, the deadline passing is `timeout`, a non-2xx answer or a transport error is `business`
 * with the status and the start of the provider's message. API keys never appear in messages.
 */
export async function callProvider(
  url: URL,
  init: RequestInit,
  options: ProviderCallOptions,
): Promise<ProviderAnswer> {
  const refusal = options.hostPolicy(url.hostname);
  if (refusal) return { ok: false, result: toolFailure("denied", `${options.what}: ${refusal}`) };
  let response: Response;
  try {
    response = await options.fetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (err) {
    const name = (err as Error).name;
    if (name === "TimeoutError" || name === "AbortError") {
      return {
        ok: false,
        result: toolFailure("timeout", `${options.what} did not answer within ${options.timeoutMs} ms`),
      };
    }
    return {
      ok: false,
      result: toolFailure("business", `${options.what} could not be reached: ${causeOf(err)}`),
    };
  }
  if (response.ok) return { ok: true, response };
  const text = (await response.text().catch(() => "")).slice(0, 300);
  const hint =
    response.status === 401 || response.status === 403 ? " (the provider rejected the API key)" : "";
  return {
    ok: false,
    result: toolFailure("business", `${options.what} answered HTTP ${response.status}${hint}: ${text}`, {
      status: response.status,
    }),
  };
}

/** Reads a JSON body, or a failure result naming the provider. */
export async function readJson(
  response: Response,
  what: string,
): Promise<{ ok: true; body: unknown } | { ok: false; result: ToolFailure }> {
  try {
    return { ok: true, body: await response.json() };
  } catch {
    return { ok: false, result: toolFailure("business", `${what} answered with a body that is not JSON`) };
  }
}

function causeOf(err: unknown): string {
  const error = err as Error & { cause?: { message?: string; code?: string } };
  return error.cause?.code ?? error.cause?.message ?? error.message;
}
