import { isIP } from "node:net";
import Type from "typebox";
import {
  defineTool,
  type Tool,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import { FetchAbortedError, type PinnedResponse, pinnedGet } from "./pinned-http.js";
import { renderBody, WEB_FETCH_FORMATS } from "./web-content.js";
import { DEFAULT_WEB_FETCH_LIMITS, type WebFetchLimits, type WebFetchOptions } from "./web-ports.js";

/** Default and upper bound of `max_chars`. */
export const WEB_FETCH_DEFAULT_CHARS = 20_000;
export const WEB_FETCH_MAX_CHARS = 200_000;

const WebFetchParams = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096, description: "The http or https URL to fetch" }),
    format: Type.Optional(
      Type.Enum(WEB_FETCH_FORMATS, {
        description: "text (default): HTML converted to readable text; raw: the decoded body as sent",
      }),
    ),
    max_chars: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: WEB_FETCH_MAX_CHARS,
        description: `Most characters of text returned (default ${WEB_FETCH_DEFAULT_CHARS})`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** One hop's target: where to connect, or why not. */
type HopTarget = { ok: true; host: string; addresses: readonly string[] } | { ok: false; result: ToolResult };

/**
 * `web_fetch`: GET a page and return it as readable text. Every hop (the first URL and each
 * redirect) goes through the SSRF check and the network policy, and the socket connects only to
 * the addresses the check vetted. An internal first URL needs a person's approval (the gate asks;
 * the tool then requires `approvalSource: human`); an internal redirect target is always refused,
 * because nobody approved it. Body size and the whole fetch's time are capped.
 */
export function createWebFetchTool(options: WebFetchOptions): Tool<typeof WebFetchParams> {
  const limits: WebFetchLimits = { ...DEFAULT_WEB_FETCH_LIMITS, ...options.limits };
  const userAgent = options.userAgent ?? "echo-runner web_fetch";

  async function target(url: string, hop: number, ctx: ToolExecutionContext): Promise<HopTarget> {
    const check = await options.checkUrl(url);
    const what = hop === 0 ? url : `the redirect to ${url}`;
    if (check.verdict === "deny") {
      return { ok: false, result: toolFailure("denied", `web_fetch refused ${what}: ${check.reason}`) };
    }
    const refusal = check.host ? options.hostPolicy(check.host) : undefined;
    if (refusal) return { ok: false, result: toolFailure("denied", `web_fetch refused ${what}: ${refusal}`) };
    if (check.verdict === "allow") return { ok: true, host: check.host, addresses: check.connectTo };
    if (hop > 0 || ctx.approvalSource !== "human") {
      return {
        ok: false,
        result: toolFailure(
          "denied",
          hop > 0
            ? `web_fetch refused ${what}: ${check.reason}; a redirect to an internal address is never followed`
            : `web_fetch refused ${what}: ${check.reason}; fetching an internal address needs a person's approval`,
        ),
      };
    }
    // A person approved this exact URL: resolve once and connect to what was resolved.
    const addresses = isIP(check.host) ? [check.host] : await options.lookup(check.host).catch(() => []);
    if (addresses.length === 0) {
      return { ok: false, result: toolFailure("business", `web_fetch: ${check.host} does not resolve`) };
    }
    return { ok: true, host: check.host, addresses };
  }

  return defineTool({
    name: "web_fetch",
    description:
      "Fetch a web page (http or https) and return it as readable text. Internal addresses need approval; redirects are re-checked.",
    parameters: WebFetchParams,
    riskLevel: "read_only",
    idempotent: true,
    timeoutSeconds: Math.ceil(limits.timeoutMs / 1000) + 5,
    async execute(args, ctx) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
      try {
        return await fetchFollowing(args.url, ctx, controller.signal);
      } catch (err) {
        if (err instanceof FetchAbortedError) {
          return toolFailure(
            "timeout",
            `web_fetch: ${args.url} did not answer within ${limits.timeoutMs} ms`,
          );
        }
        return toolFailure("business", `web_fetch: ${args.url} failed: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }

      async function fetchFollowing(first: string, ctx: ToolExecutionContext, signal: AbortSignal) {
        let url = first;
        const chain: string[] = [];
        for (let hop = 0; ; hop++) {
          const hopTarget = await target(url, hop, ctx);
          if (!hopTarget.ok) return hopTarget.result;
          const response = await pinnedGet({
            url: new URL(url),
            addresses: hopTarget.addresses,
            headers: {
              "user-agent": userAgent,
              accept: "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5",
              "accept-encoding": "gzip, deflate, br",
            },
            maxBytes: limits.maxBytes,
            signal,
          });
          const location =
            response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
          if (!location) return render(url, chain, response);
          if (hop >= limits.maxRedirects) {
            return toolFailure(
              "business",
              `web_fetch: more than ${limits.maxRedirects} redirects from ${first}`,
            );
          }
          chain.push(url);
          url = new URL(location, url).toString();
        }
      }

      function render(url: string, chain: readonly string[], response: PinnedResponse): ToolResult {
        const contentType = headerText(response.headers["content-type"]);
        const rendered = renderBody(response.body, contentType, args.format ?? "text");
        const data = {
          url: args.url,
          finalUrl: url,
          redirects: chain.length,
          status: response.status,
          mediaType: rendered.mediaType,
          bytes: response.body.length,
          truncatedBytes: response.truncated,
        };
        if (!rendered.ok) return toolFailure("business", `web_fetch: ${rendered.reason}`, data);
        const maxChars = args.max_chars ?? WEB_FETCH_DEFAULT_CHARS;
        const cut = rendered.text.length > maxChars;
        const text = cut ? rendered.text.slice(0, maxChars) : rendered.text;
        const notes = [
          response.truncated ? `[body cut at ${limits.maxBytes} bytes]` : "",
          cut ? `[text cut at ${maxChars} characters of ${rendered.text.length}]` : "",
        ].filter(Boolean);
        const output = [
          `URL: ${url}`,
          `Status: ${response.status}`,
          `Content-Type: ${rendered.mediaType}`,
          "",
          text,
          ...notes,
        ].join("\n");
        const ok = response.status >= 200 && response.status < 300;
        if (!ok) {
          return {
            ...toolFailure("business", `web_fetch: ${url} answered HTTP ${response.status}`, data),
            output,
          };
        }
        return toolSuccess(output, { ...data, truncatedText: cut });
      }
    },
  });
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
