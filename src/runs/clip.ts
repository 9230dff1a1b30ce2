import { sanitizeText, sanitizeValue, truncateText } from "../agent/index.js";

/** Default longest text or JSON of one field in a run view, characters. */
export const DEFAULT_VIEW_MAX_CHARS = 2000;

/** Sanitised text cut to `max` characters (null stays null). */
export function clipText(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  return truncateText(sanitizeText(text), max).text;
}

/**
 * A JSON value sanitised (secret-named fields masked) and, when its JSON is longer than `max`,
 * replaced by its cut JSON text — so a view stays small whatever a tool returned.
 */
export function clipValue(value: unknown, max: number): unknown {
  const clean = sanitizeValue(value);
  const json = JSON.stringify(clean) ?? "null";
  return json.length <= max ? clean : truncateText(json, max).text;
}
