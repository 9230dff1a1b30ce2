import { hiddenCharactersIn, makeVisible } from "../../shared/index.js";

/** Rule id of the finding. */
export const INVISIBLE_CHARACTERS_RULE = "args.invisible-characters";

/**
 * Characters that ordinary text carries for good reasons and that the approval pages still show
 * escaped: carriage return (CRLF files), the zero-width joiner and variation selectors (emoji
 * sequences), the zero-width non-joiner (Persian and Indic writing needs it), and spaces other than
 * U+0020 (copied prose). Everything else {@link makeVisible}
 * escapes — bidirectional overrides and isolates, zero-width spaces, other format and control
 * characters, line and paragraph separators, invisible fillers, tag characters — flags the call.
 */
const ORDINARY: ReadonlySet<number> = new Set([
  0x0d,
  0x200c,
  0x200d,
  ...range(0xfe00, 0xfe0f),
  0xa0,
  0x1680,
  ...range(0x2000, 0x200a),
  0x202f,
  0x205f,
  0x3000,
]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** Values visited at most (a deeper or wider argument is judged on what was visited, plus a flag). */
const MAX_VALUES = 10_000;

/** A soft finding: the call needs a person (never a deny on its own). */
export interface InvisibleCharactersFinding {
  readonly rule: typeof INVISIBLE_CHARACTERS_RULE;
  readonly reason: string;
}

/**
 * Looks through every string of a tool call's arguments — values and keys, at any depth — for
 * characters that make what a person reads differ from what runs (a right-to-left override turns
 * `report‮txt.exe` into `reportexe.txt` on screen). Any one flags the call for any tool, not only
 * exec's command: the approver then sees the call with those characters written out. Pure.
 */
export function findInvisibleCharacters(args: unknown): InvisibleCharactersFinding | null {
  const found: string[] = [];
  let visited = 0;
  const stack: unknown[] = [args];
  while (stack.length > 0) {
    const value = stack.pop();
    visited += 1;
    if (visited > MAX_VALUES) {
      return {
        rule: INVISIBLE_CHARACTERS_RULE,
        reason: `the arguments hold more than ${MAX_VALUES} values, too many to check for invisible characters`,
      };
    }
    if (typeof value === "string") {
      for (const ch of hiddenCharactersIn(value)) if (!ORDINARY.has(ch.codePointAt(0) ?? 0)) found.push(ch);
    } else if (Array.isArray(value)) {
      stack.push(...value);
    } else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) stack.push(key, inner);
    }
  }
  if (found.length === 0) return null;
  const kinds = [...new Set(found.map((ch) => makeVisible(ch)))].slice(0, 5).join(", ");
  return {
    rule: INVISIBLE_CHARACTERS_RULE,
    reason: `the arguments hold ${found.length} invisible, direction-changing or control character(s) (${kinds}): what a screen shows may not be what runs`,
  };
}
