import type { ToolReadiness } from "../../catalog/index.js";
import { callProvider, type FetchFn, type ProviderAnswer } from "../provider-http.js";
import type { HostPolicy } from "../web/web-ports.js";

/** An OpenAI-compatible endpoint for one media task, with its key resolved by the caller. */
export interface MediaEndpoint {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` (paths are appended to it). */
  readonly baseUrl: string;
  readonly model: string;
  /** The key; undefined when `apiKeyEnv` is not set. */
  readonly apiKey: string | undefined;
  /** The variable the key comes from; undefined for a server that needs no key (a local one). */
  readonly apiKeyEnv?: string;
  /** Deadline of one request, ms. Default 60,000. */
  readonly timeoutMs?: number;
}

/** A speech endpoint: the voice used when a call names none. */
export interface SpeechEndpoint extends MediaEndpoint {
  /** Default "alloy". */
  readonly voice?: string;
}

/** The media endpoints from config (`tools.media.vision|image|tts`); each optional. */
export interface MediaSettings {
  readonly vision?: MediaEndpoint;
  readonly image?: MediaEndpoint;
  readonly tts?: SpeechEndpoint;
}

/** What a media tool is built from. */
export interface MediaToolOptions<E extends MediaEndpoint = MediaEndpoint> {
  readonly endpoint: E | undefined;
  readonly fetch: FetchFn;
  readonly hostPolicy: HostPolicy;
}

/** Readiness of a media tool: configured, and its key present when one is needed. */
export function mediaReadiness(
  endpoint: MediaEndpoint | undefined,
  key: "vision" | "image" | "tts",
): ToolReadiness {
  if (!endpoint) return { ready: false, detail: `no ${key} endpoint is configured (tools.media.${key})` };
  if (endpoint.apiKeyEnv && !endpoint.apiKey) {
    return { ready: false, detail: `${endpoint.apiKeyEnv} is not set (API key of tools.media.${key})` };
  }
  return { ready: true, detail: `${endpoint.model} at ${new URL(endpoint.baseUrl).host}` };
}

/** POSTs JSON to `<baseUrl>/<path>` with the endpoint's key as a bearer token. */
export function postToProvider(
  options: MediaToolOptions,
  endpoint: MediaEndpoint,
  path: string,
  body: unknown,
  what: string,
): Promise<ProviderAnswer> {
  const url = new URL(`${endpoint.baseUrl.replace(/\/+$/, "")}/${path}`);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  return callProvider(
    url,
    { method: "POST", headers, body: JSON.stringify(body) },
    { fetch: options.fetch, hostPolicy: options.hostPolicy, timeoutMs: endpoint.timeoutMs ?? 60_000, what },
  );
}
