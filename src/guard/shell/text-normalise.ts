/**
 * Unicode folding for matching: look-alike letters, full-width forms and invisible characters must
 * not hide a command name or a path from the guard. Folding only ever makes more things match.
 */

/** Characters a person cannot see: C0/C1 controls (but tab and newline), zero-width and bidi marks. */
// Built from a string: the class is all control characters, which is the point of it.
const HIDDEN_CLASS =
  "[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u00ad\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff]";
const HIDDEN = new RegExp(HIDDEN_CLASS, "g");
const HIDDEN_TEST = new RegExp(HIDDEN_CLASS);

/** Cyrillic and Greek letters that look like Latin ones (the usual homoglyph set). */
const CONFUSABLES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ı: "i",
  А: "a",
  В: "b",
  Е: "e",
  К: "k",
  М: "m",
  Н: "h",
  О: "o",
  Р: "p",
  С: "c",
  Т: "t",
  У: "y",
  Х: "x",
  α: "a",
  ο: "o",
  ρ: "p",
  ν: "v",
  τ: "t",
  υ: "u",
  ι: "i",
  κ: "k",
  χ: "x",
  ε: "e",
  Ι: "i",
  Ο: "o",
  "‐": "-",
  "‑": "-",
  "‒": "-",
  "–": "-",
  "—": "-",
  "―": "-",
  "−": "-",
  "⁄": "/",
  "∕": "/",
  "／": "/",
  "＼": "\\",
};
const CONFUSABLE_PATTERN = new RegExp(`[${Object.keys(CONFUSABLES).join("")}]`, "g");
const ASCII_ONLY = /^[\u0020-\u007e\t\n]*$/;

/** True when `text` holds characters a person cannot see (controls, zero-width, bidi overrides). */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN_TEST.test(text);
}

/**
 * Folds `text` for matching: removes hidden characters, applies NFKC (full-width → ASCII), maps
 * look-alike letters and dashes to ASCII. Plain ASCII is returned unchanged (the fast path).
 */
export function foldForMatching(text: string): string {
  if (ASCII_ONLY.test(text)) return text;
  return text
    .replace(HIDDEN, "")
    .normalize("NFKC")
    .replace(CONFUSABLE_PATTERN, (ch) => CONFUSABLES[ch] ?? ch);
}
