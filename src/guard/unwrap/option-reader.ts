import type { Field } from "../shell/index.js";

/**
 * Reads a program's options the way its own parser does (GNU getopt_long and its relatives), so a
 * check that looks for `--to-command` also sees `--to-com=…`, `--to-command …`, `-I…` and `-xzI…`.
 *
 * A program's options are written once, compactly, in an {@link OptionSpec}: every long option in
 * full (`to-command=` takes a value, `backup?` an optional `=value`, a bare name none; `/I` names
 * its short alias), and the short options in getopt's own notation (`"xzf:C:I:"`: a `:` after a
 * letter means it takes a value, attached `-Cdir` or as the next word).
 *
 * Long options are resolved like getopt_long: an exact name wins; otherwise a unique prefix is that
 * option. An ambiguous prefix is reported as every option it could mean, so a check errs towards
 * finding the dangerous one (the program itself refuses an ambiguous prefix, so nothing is lost).
 */

/** How an option takes its argument. */
export const OPTION_ARGS = ["none", "required", "optional"] as const;
export type OptionArg = (typeof OPTION_ARGS)[number];

/** A program's options, compiled from the compact notation. */
export interface OptionSpec {
  /** Long option name (no dashes) → how it takes a value. */
  readonly long: ReadonlyMap<string, OptionArg>;
  /** Short option letter → how it takes a value. */
  readonly short: ReadonlyMap<string, OptionArg>;
  /** Short letter → the long option it is an alias of. */
  readonly shortAlias: ReadonlyMap<string, string>;
  /** Options end at the first operand (POSIX), instead of GNU's permutation. */
  readonly stopAtOperand: boolean;
  /** The first word may be a bundle of short options without a dash (`tar xzf a.tgz`). */
  readonly oldStyle: boolean;
}

/** Compact notation of a program's options; see {@link compileOptions}. */
export interface OptionSpecSource {
  /** Space-separated long options: `name`, `name=` (value), `name?` (optional `=value`), `/x` alias. */
  long?: string;
  /** getopt short-option string: `"ab:c::"`. */
  short?: string;
  stopAtOperand?: boolean;
  oldStyle?: boolean;
}

/** Compiles the compact notation into an {@link OptionSpec}. */
export function compileOptions(source: OptionSpecSource): OptionSpec {
  const long = new Map<string, OptionArg>();
  const short = new Map<string, OptionArg>();
  const shortAlias = new Map<string, string>();
  for (const word of (source.long ?? "").split(/\s+/)) {
    if (word === "") continue;
    const m = /^([A-Za-z0-9][A-Za-z0-9-]*)([=?]?)(?:\/(.))?$/.exec(word);
    if (!m) throw new Error(`bad long option ${word}`);
    const arg: OptionArg = m[2] === "=" ? "required" : m[2] === "?" ? "optional" : "none";
    long.set(m[1] as string, arg);
    if (m[3]) {
      shortAlias.set(m[3], m[1] as string);
      if (!short.has(m[3])) short.set(m[3], arg === "optional" ? "none" : arg);
    }
  }
  const s = source.short ?? "";
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (ch === ":") continue;
    const optional = s[i + 1] === ":" && s[i + 2] === ":";
    short.set(ch, optional ? "optional" : s[i + 1] === ":" ? "required" : "none");
  }
  return {
    long,
    short,
    shortAlias,
    stopAtOperand: source.stopAtOperand ?? false,
    oldStyle: source.oldStyle ?? false,
  };
}

/** One option as the program reads it. */
export interface ReadOption {
  /** Canonical name: `--to-command` for long options (and short ones with a long alias), `-x` otherwise. */
  name: string;
  /** The value, if the option took one. */
  value?: Field;
  /** Index in args of the word the option was written in. */
  index: number;
}

/** The options and operands of an argument list. */
export interface ReadArgs {
  options: ReadOption[];
  operands: Field[];
}

/** Every long option `written` may mean: the exact name, else every option it is a prefix of. */
export function longCandidates(written: string, spec: OptionSpec): string[] {
  if (spec.long.has(written)) return [written];
  const out: string[] = [];
  for (const name of spec.long.keys()) if (name.startsWith(written)) out.push(name);
  return out;
}

function shortName(ch: string, spec: OptionSpec): string {
  const alias = spec.shortAlias.get(ch);
  return alias ? `--${alias}` : `-${ch}`;
}

function valueField(arg: Field, text: string): Field {
  return { ...arg, text };
}

/** Reads `args` (argv without the program name) with `spec`. */
export function readOptions(args: readonly Field[], spec: OptionSpec): ReadArgs {
  const out: ReadArgs = { options: [], operands: [] };
  let i = 0;
  if (spec.oldStyle && args[0] && !args[0].text.startsWith("-") && /^[A-Za-z]+$/.test(args[0].text)) {
    // `tar czfI a.tgz prog`: each value-taking letter takes the next word, in order.
    let next = 1;
    for (const ch of args[0].text) {
      const kind = spec.short.get(ch) ?? "none";
      const value = kind === "required" ? args[next] : undefined;
      if (value) next++;
      out.options.push({ name: shortName(ch, spec), value, index: 0 });
    }
    i = next;
  }
  for (; i < args.length; i++) {
    const arg = args[i] as Field;
    const text = arg.text;
    if (text === "--") {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const written = eq === -1 ? text.slice(2) : text.slice(2, eq);
      const candidates = longCandidates(written, spec);
      if (candidates.length === 0) {
        out.options.push({
          name: `--${written}`,
          value: eq === -1 ? undefined : valueField(arg, text.slice(eq + 1)),
          index: i,
        });
        continue;
      }
      let value: Field | undefined;
      if (eq !== -1) value = valueField(arg, text.slice(eq + 1));
      else if (candidates.some((c) => spec.long.get(c) === "required")) {
        value = args[i + 1];
        i++;
      }
      for (const c of candidates)
        out.options.push({ name: `--${c}`, value, index: i - (value && eq === -1 ? 1 : 0) });
      continue;
    }
    if (text.startsWith("-") && text.length > 1) {
      for (let j = 1; j < text.length; j++) {
        const ch = text[j] as string;
        const kind = spec.short.get(ch) ?? "none";
        if (kind === "none") {
          out.options.push({ name: shortName(ch, spec), index: i });
          continue;
        }
        const rest = text.slice(j + 1);
        if (rest !== "")
          out.options.push({ name: shortName(ch, spec), value: valueField(arg, rest), index: i });
        else if (kind === "required") {
          out.options.push({ name: shortName(ch, spec), value: args[i + 1], index: i });
          i++;
        } else out.options.push({ name: shortName(ch, spec), index: i });
        break;
      }
      continue;
    }
    out.operands.push(arg);
    if (spec.stopAtOperand) {
      out.operands.push(...args.slice(i + 1));
      break;
    }
  }
  return out;
}

/** The values of the named options (canonical names: `--output`, `-o`). */
export function optionValuesOf(read: ReadArgs, ...names: string[]): Field[] {
  const out: Field[] = [];
  for (const o of read.options) if (o.value && names.includes(o.name)) out.push(o.value);
  return out;
}

/** True when any of the named options was given. */
export function hasOption(read: ReadArgs, ...names: string[]): boolean {
  return read.options.some((o) => names.includes(o.name));
}
