/**
 * The wait a server asks for, ms, from `retry-after-ms` (OpenAI, Anthropic) or `retry-after`
 * (seconds, or an HTTP date), or undefined when it asks for none or sends something unreadable.
 */
export function parseRetryAfterMs(
  header: (name: string) => string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  const ms = header("retry-after-ms");
  if (ms != null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const after = header("retry-after");
  if (after == null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.round(seconds * 1000) : undefined;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : undefined;
}
