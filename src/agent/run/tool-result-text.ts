import type { ToolResult } from "../../catalog/index.js";
import { TOOL_RESULT_MAX_CHARS, truncateError, truncateText } from "../execution/result-limits.js";
import { sanitizeText, sanitizeValue } from "../execution/sanitize.js";
import type { SpillStore } from "./ports.js";

/** A sanitised result ready for the journal and the model, with the spill id of its full text. */
export interface PreparedResult {
  readonly result: ToolResult;
  readonly spillId?: string;
}

/**
 * Sanitises a tool's result (credential fields, header lines, injected secret values), then cuts
 * long output to the fixed limit, spilling the full text first so nothing is lost.
 */
export async function prepareResult(
  raw: ToolResult,
  secrets: readonly string[],
  spill: { store: SpillStore; runId: string; key: string },
): Promise<PreparedResult> {
  const output = sanitizeText(raw.output, secrets);
  const data = raw.data === undefined ? undefined : sanitizeValue(raw.data, secrets);
  let spillId: string | undefined;
  let shown = output;
  if (output.length > TOOL_RESULT_MAX_CHARS) {
    spillId = await spill.store.put(spill.runId, spill.key, output);
    const cut = truncateText(output, TOOL_RESULT_MAX_CHARS - 120);
    shown = `${cut.text}\n[full output: ${output.length} characters; read it with read_spill {"id": "${spillId}"}]`;
  }
  const base = data === undefined ? {} : { data };
  const result: ToolResult = raw.success
    ? { success: true, output: shown, ...base }
    : {
        success: false,
        output: shown,
        error: sanitizeText(raw.error, secrets),
        errorKind: raw.errorKind,
        ...base,
      };
  return spillId === undefined ? { result } : { result, spillId };
}

/** The text the model receives for a result. */
export function resultForModel(result: ToolResult): string {
  if (result.success) return result.output;
  const error = truncateError(result.error).text;
  return result.output
    ? `Error (${result.errorKind}): ${error}\n${result.output}`
    : `Error (${result.errorKind}): ${error}`;
}
