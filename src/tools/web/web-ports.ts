/**
 * The ports web_fetch needs from layers above tools (the guard's SSRF check, policy's host list),
 * as plain function types: tools sit below guard and policy, so the worker injects them.
 */

/**
 * The SSRF check's verdict on one URL. Structurally the guard's `UrlVerdict`, so the worker passes
 * `(url) => checkUrl(url, resolver)` from src/guard as is.
 */
export interface UrlCheck {
  readonly verdict: "allow" | "ask" | "deny";
  /** Why, for the tool result ("10.0.0.5 is an internal address (private)"). */
  readonly reason: string;
  /** The host as the URL parser normalised it (brackets and trailing dots removed). */
  readonly host: string;
  /**
   * The checked addresses to connect to (the name is never resolved again, so DNS rebinding cannot
   * swap in another address). Empty unless the verdict is allow.
   */
  readonly connectTo: readonly string[];
}

/** Checks one URL: resolves its host once and judges every address. */
export type UrlChecker = (url: string) => Promise<UrlCheck>;

/** Resolves a host name to addresses (used only for an internal URL a person approved). */
export type HostLookup = (host: string) => Promise<readonly string[]>;

/**
 * `execution.network_policy` at call time: undefined when the host may be contacted, otherwise why
 * not. For `restricted` the worker binds policy's `isHostAllowed` to `execution.allowed_hosts`;
 * redirects are checked here too, since the gate only saw the first URL.
 */
export type HostPolicy = (host: string) => string | undefined;

/** Caps of one web_fetch call. */
export interface WebFetchLimits {
  /** Most body bytes read (after decompression); the rest is cut. Default 2 MiB. */
  readonly maxBytes: number;
  /** Deadline of the whole fetch, redirects included, ms. Default 20,000. */
  readonly timeoutMs: number;
  /** Most redirects followed. Default 5. */
  readonly maxRedirects: number;
}

/** Default {@link WebFetchLimits}. */
export const DEFAULT_WEB_FETCH_LIMITS: WebFetchLimits = Object.freeze({
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 20_000,
  maxRedirects: 5,
});

/** What web_fetch is built from. */
export interface WebFetchOptions {
  checkUrl: UrlChecker;
  lookup: HostLookup;
  hostPolicy: HostPolicy;
  limits?: Partial<WebFetchLimits>;
  /** Sent as User-Agent. Default "echo-runner web_fetch". */
  userAgent?: string;
}
