import {
  MAX_RUN_LIST_LIMIT,
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  type RunListFilter,
  type RunStateFilter,
} from "../../runs/index.js";

/** The query parameters of a run listing (`GET /api/runs`, `/admin/runs`), each at most once. */
export const RUN_LIST_PARAMS = [
  "state",
  "outcome",
  "schedule",
  "agent",
  "owner",
  "since",
  "until",
  "cursor",
  "limit",
] as const;

/** An instant as a query gives it: epoch milliseconds, or an ISO-8601 time. */
function instant(name: string, text: string): number | string {
  if (/^\d{1,15}$/.test(text)) return Number(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return at;
  }
  return `${name} "${text}" is neither epoch milliseconds nor an ISO-8601 time (2026-12-03T02:00:00Z)`;
}

/**
 * The listing filter of a query string; empty parameters count as absent (an HTML form sends every
 * field). A message naming the parameter and what is allowed when one is not understood.
 */
export function runListFilterOf(
  query: Readonly<Record<string, unknown>>,
  defaultLimit?: number,
): { ok: true; filter: RunListFilter } | { ok: false; message: string } {
  const filter: RunListFilter = defaultLimit === undefined ? {} : { limit: defaultLimit };
  for (const [name, raw] of Object.entries(query)) {
    if (!(RUN_LIST_PARAMS as readonly string[]).includes(name)) {
      if (name === "notice") continue;
      return { ok: false, message: `unknown parameter "${name}"; allowed: ${RUN_LIST_PARAMS.join(", ")}` };
    }
    if (typeof raw !== "string") return { ok: false, message: `${name} is given more than once` };
    const text = raw.trim();
    if (text === "") continue;
    if (text.length > 512) return { ok: false, message: `${name} is longer than 512 characters` };
    switch (name as (typeof RUN_LIST_PARAMS)[number]) {
      case "state":
        if (!(RUN_STATE_FILTERS as readonly string[]).includes(text))
          return {
            ok: false,
            message: `state "${text}" is not a run state; allowed: ${RUN_STATE_FILTERS.join(", ")}`,
          };
        filter.state = text as RunStateFilter;
        break;
      case "outcome":
        if (!(RUN_OUTCOMES as readonly string[]).includes(text) && !/^failed\s*:\s*\S+$/.test(text))
          return {
            ok: false,
            message: `outcome "${text}" is not an outcome; allowed: ${RUN_OUTCOMES.join(", ")}, or "failed: <code>"`,
          };
        filter.outcome = text;
        break;
      case "schedule":
      case "agent":
      case "owner":
      case "cursor":
        filter[name as "schedule" | "agent" | "owner" | "cursor"] = text;
        break;
      case "since":
      case "until": {
        const at = instant(name, text);
        if (typeof at === "string") return { ok: false, message: at };
        filter[name as "since" | "until"] = at;
        break;
      }
      case "limit": {
        const n = Number(text);
        if (!/^\d{1,4}$/.test(text) || n < 1 || n > MAX_RUN_LIST_LIMIT)
          return {
            ok: false,
            message: `limit "${text}" is not a whole number from 1 to ${MAX_RUN_LIST_LIMIT}`,
          };
        filter.limit = n;
        break;
      }
    }
  }
  return { ok: true, filter };
}
