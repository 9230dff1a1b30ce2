/** Search providers web_search speaks to: a closed set the config validates against. */
export const WEB_SEARCH_PROVIDERS = ["brave", "tavily"] as const;
export type WebSearchProvider = (typeof WEB_SEARCH_PROVIDERS)[number];
