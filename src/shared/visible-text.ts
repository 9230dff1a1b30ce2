/**
 * Characters a person cannot see or that change how the text around them is shown: control
 * characters (except newline and tab, which the renderings use for layout), line and paragraph
 * separators, spaces other than U+0020 (they pass for a plain space), the combining grapheme joiner,
 * Hangul fillers and the braille blank (they render as nothing), variation selectors — and, by
 * category, every format character (bidirectional overrides and isolates such as U+202E, zero-width
 * spaces and joiners, the byte-order mark, soft hyphen, tag characters) and lone surrogates.
 */
const HIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x08],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
  [0xa0, 0xa0],
  [0x34f, 0x34f],
  [0x115f, 0x1160],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x2800, 0x2800],
  [0x3000, 0x3000],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xffa0, 0xffa0],
  [0xe0100, 0xe01ef],
];

// Built from the table (a literal class of control characters is what linters rightly distrust).
const HIDDEN = new RegExp(
  `[${HIDDEN_RANGES.map(([from, to]) => `\\u{${from.toString(16)}}-\\u{${to.toString(16)}}`).join("")}\\p{Cf}\\p{Cs}]`,
  "gu",
);

/** True when `text` holds at least one character {@link makeVisible} would rewrite. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(text);
}

/** Every character of `text` {@link makeVisible} rewrites, in order (as found, not escaped). */
export function hiddenCharactersIn(text: string): string[] {
  return text.match(HIDDEN) ?? [];
}

/**
 * `\u202e` for each UTF-16 code unit (a character above U+FFFF as its surrogate pair, `\udb40\udc41`):
 * the form JSON and JavaScript read back as the same character, so a rendering of JSON stays JSON.
 */
function escapeCodeUnits(ch: string): string {
  let out = "";
  for (let i = 0; i < ch.length; i += 1) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}

/**
 * `text` with every hidden character written out as its escape (`\u202e`), so what a person reads is
 * what runs: a right-to-left override can no longer turn `exe.txt` into `txt.exe` on screen. Pure;
 * newlines and tabs are kept.
 */
export function makeVisible(text: string): string {
  return text.replace(HIDDEN, escapeCodeUnits);
}

/**
 * The warning shown next to text that held hidden characters, or null when there were none. It names
 * the first few escapes so the reader knows what to look for.
 */
export function hiddenCharactersWarning(text: string): string | null {
  const found = text.match(HIDDEN);
  if (!found) return null;
  const kinds = [...new Set(found.map(escapeCodeUnits))].slice(0, 5).join(", ");
  return `${found.length} invisible, direction-changing or control character(s) are shown escaped (${kinds}): read the call as written here, not as another program displays it.`;
}
