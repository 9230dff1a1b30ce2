/**
 * Finds the command substitutions (`$(...)` and backquotes) in text that bash expands like a
 * double-quoted string: the body of a here-document with an unquoted delimiter. tree-sitter-bash
 * misses them when a body line starts with blanks, so the guard scans such bodies itself. An
 * unbalanced substitution yields the rest of the text, so nothing is skipped.
 */
export function substitutionSpans(text: string): string[] {
  const spans: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
    } else if (ch === "$" && text[i + 1] === "(") {
      const end = matchingParen(text, i + 1);
      spans.push(text.slice(i + 2, end));
      i = end;
    } else if (ch === "`") {
      let end = i + 1;
      while (end < text.length && text[end] !== "`") end += text[end] === "\\" ? 2 : 1;
      spans.push(text.slice(i + 1, end).replace(/\\([`$\\])/g, "$1"));
      i = end;
    }
  }
  return spans;
}

function skipQuoted(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length && text[i] !== quote) i += quote === '"' && text[i] === "\\" ? 2 : 1;
  return i;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") i++;
    else if (ch === "'" || ch === '"') i = skipQuoted(text, i, ch);
    else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i;
  }
  return text.length;
}
