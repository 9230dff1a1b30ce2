import type { Field } from "../shell/index.js";
import type { Invocation } from "./unwrap.js";

/**
 * Small facts about an invocation's arguments that several rules need: option clusters, long
 * options resolved by unique prefix (GNU getopt accepts `--recur` for `--recursive`), operands.
 */

/** Resolves a long option name written in full or as a unique prefix of one of `known`. */
export function resolveLong(name: string, known: readonly string[]): string | undefined {
  if (known.includes(name)) return name;
  const matches = known.filter((k) => k.startsWith(name));
  return matches.length === 1 ? matches[0] : undefined;
}

/** Parsed arguments: short flags seen, long options seen (resolved), operands. */
export interface ParsedArgs {
  short: Set<string>;
  long: Set<string>;
  operands: Field[];
}

/**
 * Splits args into flags and operands. `valueShort` / `valueLong` name options that take a value
 * (the value is neither a flag nor an operand). Options may follow operands (GNU permutation).
 */
export function parseArgs(
  args: readonly Field[],
  knownLong: readonly string[],
  valueShort = "",
  valueLong: readonly string[] = [],
): ParsedArgs {
  const out: ParsedArgs = { short: new Set(), long: new Set(), operands: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Field;
    const text = arg.text;
    if (text === "--") {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (text.startsWith("--")) {
      const raw = text.slice(2).split("=")[0] ?? "";
      const name = resolveLong(raw, knownLong) ?? raw;
      out.long.add(name);
      if (!text.includes("=") && valueLong.includes(name)) i++;
    } else if (text.startsWith("-") && text.length > 1) {
      for (let j = 1; j < text.length; j++) {
        const ch = text[j] as string;
        out.short.add(ch);
        if (valueShort.includes(ch)) {
          if (j === text.length - 1) i++;
          break;
        }
      }
    } else {
      out.operands.push(arg);
    }
  }
  return out;
}

/** Every path-like value in the args: operands and the values of `--opt=value` / `key=value`. */
export function pathCandidates(inv: Invocation): Field[] {
  const out: Field[] = [];
  const skipNext = MESSAGE_FLAG_COMMANDS.has(inv.name);
  for (let i = 0; i < inv.args.length; i++) {
    const arg = inv.args[i] as Field;
    if (skipNext && MESSAGE_FLAGS.has(arg.text)) {
      i++;
      continue;
    }
    out.push(arg);
    const eq = arg.text.indexOf("=");
    const value = eq > 0 ? arg.text.slice(eq + 1) : arg.text;
    if (eq > 0) out.push({ ...arg, text: value });
    // `curl -d @file`, `curl -F f=@file`, `mysql < file` spelled as an argument.
    if (/^[@<]/.test(value)) out.push({ ...arg, text: value.slice(1) });
    // `curl file:///etc/shadow`, `file://localhost/etc/shadow`: a URL that names a local file.
    const file = /^file:\/\/(?:localhost)?(\/.*)$/i.exec(value);
    if (file) out.push({ ...arg, text: decodeURIComponent(file[1] as string) });
  }
  out.push(...inv.implicitOperands);
  return out;
}

const MESSAGE_FLAG_COMMANDS = new Set(["git", "gh", "hg", "svn", "jj", "glab"]);
const MESSAGE_FLAGS = new Set(["-m", "--message", "--title", "--body", "-t", "-b"]);
