import Type from "typebox";
import { z } from "zod";
import {
  defineTool,
  type Tool,
  type ToolReadiness,
  toolFailure,
  toolSuccess,
  type WebSearchProvider,
} from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";
import { callProvider, type FetchFn, readJson } from "../provider-http.js";
import type { HostPolicy } from "./web-ports.js";

const DEFAULT_BASE_URLS: Readonly<Record<WebSearchProvider, string>> = {
  brave: "https://api.search.brave.com",
  tavily: "https://api.tavily.com",
};

/** The configured provider, with its key resolved by the caller. */
export interface WebSearchSettings {
  readonly provider: WebSearchProvider;
  /** The API key; undefined when the variable named by `apiKeyEnv` is not set. */
  readonly apiKey: string | undefined;
  /** The environment variable the key comes from, named when it is missing. */
  readonly apiKeyEnv: string;
  /** Endpoint override (a proxy, a test server). Default: the provider's public API. */
  readonly baseUrl?: string;
  /** Deadline of one search, ms. Default 15,000. */
  readonly timeoutMs?: number;
}

/** What web_search is built from. */
export interface WebSearchOptions {
  /** Undefined when no provider is configured (the tool is then not ready, and says why). */
  readonly settings: WebSearchSettings | undefined;
  readonly fetch: FetchFn;
  readonly hostPolicy: HostPolicy;
}

/** One search hit. */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

const WebSearchParams = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 400, description: "What to search for" }),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: "Most results (default 5)" })),
  },
  { additionalProperties: false },
);

const BraveAnswer = z.object({
  web: z
    .object({
      results: z.array(z.object({ title: z.string(), url: z.string(), description: z.string().optional() })),
    })
    .optional(),
});
const TavilyAnswer = z.object({
  results: z.array(z.object({ title: z.string(), url: z.string(), content: z.string().optional() })),
});

/**
 * `web_search` through a search provider's API (Brave Search or Tavily). Not ready without a
 * configured provider or without its API key, naming what is missing. The provider's host is subject
 * to the network policy like any outbound call.
 */
export function createWebSearchTool(options: WebSearchOptions): Tool<typeof WebSearchParams> {
  const { settings } = options;
  const readiness = (): ToolReadiness => {
    if (!settings) {
      return { ready: false, detail: "no search provider is configured (tools.web.search.provider is none)" };
    }
    if (!settings.apiKey) {
      return {
        ready: false,
        detail: `${settings.apiKeyEnv} is not set (API key of the ${settings.provider} search provider, tools.web.search.api_key_env)`,
      };
    }
    return { ready: true, detail: `searches through ${settings.provider}` };
  };
  return defineTool({
    name: "web_search",
    description: "Search the web; returns titles, URLs and snippets of the top results.",
    parameters: WebSearchParams,
    riskLevel: "read_only",
    idempotent: true,
    readinessDetail: readiness,
    async execute(args) {
      if (!settings?.apiKey)
        return toolFailure("not_ready", `web_search is not ready: ${readiness().detail}`);
      const count = args.count ?? 5;
      const what = `the search provider ${settings.provider}`;
      const base = settings.baseUrl ?? DEFAULT_BASE_URLS[settings.provider];
      const request = buildRequest(settings.provider, base, settings.apiKey, args.query, count);
      const answer = await callProvider(request.url, request.init, {
        fetch: options.fetch,
        hostPolicy: options.hostPolicy,
        timeoutMs: settings.timeoutMs ?? 15_000,
        what,
      });
      if (!answer.ok) return answer.result;
      const json = await readJson(answer.response, what);
      if (!json.ok) return json.result;
      const hits = parseHits(settings.provider, json.body);
      if (!hits) return toolFailure("business", `${what} answered in an unexpected shape`);
      const top = hits.slice(0, count);
      const output =
        top.length === 0
          ? `No results for ${JSON.stringify(args.query)}.`
          : top.map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}\n   ${h.snippet}`.trimEnd()).join("\n");
      return toolSuccess(output, { provider: settings.provider, results: top });
    },
  });
}

function buildRequest(
  provider: WebSearchProvider,
  base: string,
  apiKey: string,
  query: string,
  count: number,
): { url: URL; init: RequestInit } {
  switch (provider) {
    case "brave": {
      const url = new URL("/res/v1/web/search", base);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(count));
      return { url, init: { headers: { accept: "application/json", "x-subscription-token": apiKey } } };
    }
    case "tavily":
      return {
        url: new URL("/search", base),
        init: {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ query, max_results: count }),
        },
      };
    default:
      return assertNever(provider);
  }
}

function parseHits(provider: WebSearchProvider, body: unknown): SearchHit[] | undefined {
  switch (provider) {
    case "brave": {
      const parsed = BraveAnswer.safeParse(body);
      if (!parsed.success) return undefined;
      return (parsed.data.web?.results ?? []).map((r) => ({
        title: r.title,
        url: r.url,
        snippet: stripTags(r.description ?? ""),
      }));
    }
    case "tavily": {
      const parsed = TavilyAnswer.safeParse(body);
      if (!parsed.success) return undefined;
      return parsed.data.results.map((r) => ({ title: r.title, url: r.url, snippet: r.content ?? "" }));
    }
    default:
      return assertNever(provider);
  }
}

// Brave marks query terms with <strong>; the model needs the words, not the markup.
function stripTags(text: string): string {
  return text.replace(/<\/?[a-z][^>]*>/gi, "");
}
