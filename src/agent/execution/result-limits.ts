/**
 * Fixed limits of the first truncation level (seed 002, OpenClaw's embedded-agent-tool-results):
 * a result is cut at 8,000 characters and an error at 400 (its first line only), so one result can
 * never blow up the model's context. The full text is spilled and readable through `read_spill`.
 */
export const TOOL_RESULT_MAX_CHARS = 8000;
export const TOOL_ERROR_MAX_CHARS = 400;
export const TRUNCATION_MARKER = "…(truncated)…";

/** Cuts `text` to at most `max` characters including the marker; says whether it cut. */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const keep = Math.max(0, max - TRUNCATION_MARKER.length);
  return { text: text.slice(0, keep) + TRUNCATION_MARKER, truncated: true };
}

/** An error for the model: its first line, at most {@link TOOL_ERROR_MAX_CHARS} characters. */
export function truncateError(error: string): { text: string; truncated: boolean } {
  const newline = error.indexOf("\n");
  const firstLine = newline >= 0 ? error.slice(0, newline) : error;
  const cut = truncateText(firstLine, TOOL_ERROR_MAX_CHARS);
  return { text: cut.text, truncated: cut.truncated || newline >= 0 };
}
