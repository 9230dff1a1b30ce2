import { makeVisible, neutralise } from "../shared/index.js";

/**
 * What `run`, `jobs` and `audit` print of text a model, an agent or a tool wrote
 * (docs/APPROVALS.md): escape sequences removed (clear screen, OSC 52 clipboard writes, OSC 8 links) and every other
 * control, invisible or direction-changing character written as its escape, so printing a run's
 * transcript cannot take over the terminal.
 */
export function terminalText(text: string): string {
  return neutralise(text, "terminal");
}

/**
 * JSON for the terminal: JSON.stringify leaves C1 controls (U+009B, an 8-bit CSI) and bidi
 * characters raw; written as escapes (`\u009b`) the output is the same JSON value and inert.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return makeVisible(JSON.stringify(value, null, indent) ?? "null");
}
