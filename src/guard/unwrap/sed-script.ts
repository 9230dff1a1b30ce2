/**
 * What a sed script does besides editing text, read the way GNU sed parses it: the `e` command
 * runs a command (`1e reboot`) or, bare, the pattern space; the `s///e` flag runs the pattern space;
 * `w` / `W` and the `s///w` flag write a file; `r` / `R` read one. Addresses, `{}`, labels, `y`, and
 * `a` / `i` / `c` text are skipped as sed skips them.
 */

/**
 * Stands for a part of the script known only at run time (`$V`, `${V}`, `$(…)`). Inside a regex, a
 * replacement or an address it is read as text here, so the known commands around it are still
 * found; in the place of a command or a flag it makes the script unknown. Callers treat any such
 * part as unknown too: a value holding the delimiter or a newline ends the part early and adds
 * commands of its own.
 */
export const SED_UNKNOWN = "\uE000";

/**
 * The script of a word with unknown parts: its pattern (each unknown part a `*`) with every `*`
 * as {@link SED_UNKNOWN} — a literal `*` is only ever text in sed (inside a regex), where the
 * mark reads the same.
 */
export function markUnknownParts(pattern: string): string {
  return pattern.replace(/\*/g, SED_UNKNOWN);
}

/** A text taken from a marked script, with each mark an unknown shell parameter again. */
export function unmarkUnknownParts(text: string): string {
  return text.replaceAll(SED_UNKNOWN, "$__unknown");
}

/** The side effects found in one sed script. */
export interface SedEffects {
  /** True when a part known only at run time stands where a command or a flag goes. */
  unknownCommand: boolean;
  /** Command texts of `e command`. */
  runs: string[];
  /** True when a bare `e` or an `s///e` runs the pattern space (the input) as a command. */
  runsInput: boolean;
  writes: string[];
  reads: string[];
}

function restOfLine(s: string, i: number): [string, number] {
  let end = s.indexOf("\n", i);
  if (end === -1) end = s.length;
  return [s.slice(i, end).trim(), end];
}

/** Index after a delimited part (`/re/`, the `s` parts) starting after its opening delimiter. */
function skipDelimited(s: string, i: number, delim: string): number {
  let k = i;
  while (k < s.length && s[k] !== delim && s[k] !== "\n") {
    if (s[k] === "\\") k++;
    else if (s[k] === "[" && delim !== "[") {
      // A bracket expression may hold the delimiter (`s/[/]/x/`).
      const close = s.indexOf("]", k + 2);
      if (close !== -1 && !s.slice(k, close).includes("\n")) k = close;
    }
    k++;
  }
  return k + 1;
}

function skipAddress(s: string, start: number): number {
  let i = start;
  const c = s[i];
  if (c === undefined) return i;
  if (/\d/.test(c) || (c === SED_UNKNOWN && i + 1 < s.length)) {
    // An unknown part followed by more script is read as a line number (`${START},${END}p`).
    while ((i < s.length && /[\d~]/.test(s[i] as string)) || s[i] === SED_UNKNOWN) i++;
  } else if (c === "$") i++;
  else if (c === "/" || c === "\\") {
    const delim = c === "\\" ? (s[i + 1] ?? "/") : "/";
    i = skipDelimited(s, c === "\\" ? i + 2 : i + 1, delim);
    while (i < s.length && /[IM]/.test(s[i] as string)) i++;
  } else if (c === "+" || c === "~") {
    i++;
    while (i < s.length && /\d/.test(s[i] as string)) i++;
  }
  return i;
}

/** Reads one script. Unparseable parts end the scan; what was read before them stands. */
export function sedEffects(script: string): SedEffects {
  const out: SedEffects = { unknownCommand: false, runs: [], runsInput: false, writes: [], reads: [] };
  const s = script;
  let i = 0;
  let guard = 0;
  while (i < s.length && guard++ < 100_000) {
    const ch = s[i] as string;
    if (/[\s;{}!]/.test(ch)) {
      i++;
      continue;
    }
    if (ch === "#") {
      i = restOfLine(s, i)[1];
      continue;
    }
    const afterFirst = skipAddress(s, i);
    i = afterFirst;
    if (s[i] === ",") i = skipAddress(s, i + 1);
    while (i < s.length && /[\s!]/.test(s[i] as string) && s[i] !== "\n") i++;
    const cmd = s[i];
    if (cmd === undefined) break;
    i++;
    switch (cmd) {
      case "s": {
        const delim = s[i];
        if (delim === undefined || delim === "\n" || delim === "\\") return out;
        i = skipDelimited(s, i + 1, delim);
        i = skipDelimited(s, i, delim);
        while (i < s.length) {
          const f = s[i] as string;
          if (f === SED_UNKNOWN) out.unknownCommand = true;
          if (f === "e") out.runsInput = true;
          else if (f === "w") {
            const [file, end] = restOfLine(s, i + 1);
            if (file) out.writes.push(file);
            i = end;
            break;
          } else if (!/[gpiImM0-9]/.test(f)) break;
          i++;
        }
        break;
      }
      case "y": {
        const delim = s[i];
        if (delim === undefined || delim === "\n") return out;
        i = skipDelimited(s, i + 1, delim);
        i = skipDelimited(s, i, delim);
        break;
      }
      case "e": {
        const [text, end] = restOfLine(s, i);
        // `e` alone (also before `;` or `}`) runs the pattern space.
        if (text === "" || /^[;}]/.test(text)) out.runsInput = true;
        else out.runs.push(text);
        i = end;
        break;
      }
      case "w":
      case "W":
      case "r":
      case "R": {
        const [file, end] = restOfLine(s, i);
        if (file) (cmd === "w" || cmd === "W" ? out.writes : out.reads).push(file);
        i = end;
        break;
      }
      case "a":
      case "i":
      case "c": {
        // Text to the end of the line, continued by a trailing backslash.
        let [, end] = restOfLine(s, i);
        while (end < s.length && s[end - 1] === "\\") end = restOfLine(s, end + 1)[1];
        i = end;
        break;
      }
      case ":":
      case "b":
      case "t":
      case "T":
      case "v": {
        while (i < s.length && !/[;\n}]/.test(s[i] as string)) i++;
        break;
      }
      case SED_UNKNOWN:
        out.unknownCommand = true;
        break;
      default:
        // Single-letter commands (p, d, n, q 5, l, =, ...) and their numeric arguments.
        while (i < s.length && /[\d ]/.test(s[i] as string)) i++;
    }
  }
  return out;
}
