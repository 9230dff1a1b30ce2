import { RunnerError } from "../../shared/index.js";
import type { Field } from "../shell/index.js";
import { optionSpec } from "../unwrap/index.js";

/**
 * A safe-bin profile as operators write it in config (`tools.exec.safe_bins.<bin>`, snake_case).
 * A safe bin runs without asking in allowlist mode only if its whole argv fits the profile; any
 * flag not listed is refused, so a profile lists what is allowed, not what is dangerous.
 * See SAFE_BINS.md for the YAML form and the shipped profiles.
 */
export interface SafeBinProfileConfig {
  /** Flags that take no value, short (`-c`) or long (`--count`). */
  flags?: readonly string[];
  /** Flags that take one value: `-n 5`, `-n5`, `--lines=5`, `--lines 5`. */
  value_flags?: readonly string[];
  /** Long flags that take two values (`jq --arg NAME VALUE`). */
  two_value_flags?: readonly string[];
  /**
   * Flags refused in every spelling. Anything unlisted is refused anyway; listing a dangerous flag
   * here also makes a long-option prefix that could mean it (`--comp` for `--compress-program`)
   * ambiguous, and the refusal reason names it.
   */
  denied_flags?: readonly string[];
  /** Accept `-NUM` (`head -5`). Default false. */
  numeric_flag?: boolean;
  /** Fewest operands. Default 0. */
  min_positional?: number;
  /** Most operands. Default 0 (stdin only). */
  max_positional?: number;
  /** Accept operands that look like paths (`/x`, `./x`, `../x`, `~/x`). Default false. */
  path_operands?: boolean;
  /** Words refused inside operands, matched as whole words (`env`, `$ENV` for jq). */
  denied_operand_words?: readonly string[];
}

/** A profile checked and compiled for fast matching. */
export interface SafeBinProfile {
  readonly flags: ReadonlySet<string>;
  readonly valueFlags: ReadonlySet<string>;
  readonly twoValueFlags: ReadonlySet<string>;
  readonly deniedFlags: ReadonlySet<string>;
  /** Every long flag the profile names (allowed or denied). */
  readonly knownLong: readonly string[];
  /**
   * Every long option of the real program (its option table), for resolving abbreviations the way
   * the program does; undefined when the guard has no table for it, and then only full names count.
   */
  readonly programLong: readonly string[] | undefined;
  readonly numericFlag: boolean;
  readonly minPositional: number;
  readonly maxPositional: number;
  readonly pathOperands: boolean;
  readonly deniedOperandWords: ReadonlySet<string>;
}

const PROFILE_KEYS = [
  "flags",
  "value_flags",
  "two_value_flags",
  "denied_flags",
  "numeric_flag",
  "min_positional",
  "max_positional",
  "path_operands",
  "denied_operand_words",
] as const;

/** Programs that can never be safe bins, whatever a config says: they run code or write files. */
export const NEVER_SAFE_BINS = new Set([
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "gsed",
  "find",
  "xargs",
  "env",
  "sudo",
  "doas",
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "fish",
  "python",
  "python3",
  "node",
  "perl",
  "ruby",
  "php",
  "lua",
  "tclsh",
  "eval",
  "exec",
  "command",
  "busybox",
  "nice",
  "nohup",
  "timeout",
  "stdbuf",
  "time",
  "watch",
  "ssh",
  "git",
  "tee",
  "dd",
  "rm",
  "mv",
  "cp",
  "chmod",
  "chown",
  "su",
  "vim",
  "vi",
  "less",
  "more",
  "man",
]);

function fail(bin: string, message: string, value: unknown): never {
  throw new RunnerError("CONFIG_INVALID", `tools.exec.safe_bins.${bin}: ${message}`, {
    data: { key: `tools.exec.safe_bins.${bin}`, value },
  });
}

function flagList(bin: string, key: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(bin, `${key} must be a list of flags like "-n" or "--lines"`, value);
  for (const flag of value) {
    if (typeof flag !== "string" || !/^(-[A-Za-z0-9]|--[A-Za-z0-9][A-Za-z0-9-]*)$/.test(flag)) {
      fail(bin, `${key} entry ${JSON.stringify(flag)} is not a flag (write "-x" or "--long-name")`, value);
    }
  }
  return value as string[];
}

function count(bin: string, key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 64) {
    fail(bin, `${key} must be a whole number from 0 to 64`, value);
  }
  return value;
}

/**
 * Checks an operator's profile and compiles it. Throws `CONFIG_INVALID` naming the key, the bad
 * value and what is allowed; a bin that can never be safe (awk, sed, find, xargs, interpreters) is
 * refused outright.
 */
export function compileSafeBinProfile(bin: string, config: SafeBinProfileConfig): SafeBinProfile {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(bin))
    fail(bin, "the name must be a program name, not a path", bin);
  if (NEVER_SAFE_BINS.has(bin.toLowerCase()))
    fail(bin, `${bin} runs code or writes files and can never be a safe bin`, bin);
  if (typeof config !== "object" || config === null || Array.isArray(config))
    fail(bin, "must be a mapping", config);
  for (const key of Object.keys(config)) {
    if (!(PROFILE_KEYS as readonly string[]).includes(key))
      fail(bin, `unknown key "${key}" (allowed: ${PROFILE_KEYS.join(", ")})`, config);
  }
  const flags = flagList(bin, "flags", config.flags);
  const valueFlags = flagList(bin, "value_flags", config.value_flags);
  const twoValueFlags = flagList(bin, "two_value_flags", config.two_value_flags);
  const deniedFlags = flagList(bin, "denied_flags", config.denied_flags);
  for (const flag of [...flags, ...valueFlags, ...twoValueFlags]) {
    if (deniedFlags.includes(flag)) fail(bin, `${flag} is both allowed and denied`, config);
  }
  const minPositional = count(bin, "min_positional", config.min_positional, 0);
  const maxPositional = count(bin, "max_positional", config.max_positional, 0);
  if (maxPositional < minPositional) fail(bin, "max_positional is smaller than min_positional", config);
  for (const key of ["numeric_flag", "path_operands"] as const) {
    if (config[key] !== undefined && typeof config[key] !== "boolean")
      fail(bin, `${key} must be true or false`, config[key]);
  }
  const words = config.denied_operand_words ?? [];
  if (!Array.isArray(words) || words.some((w) => typeof w !== "string" || w === "")) {
    fail(bin, "denied_operand_words must be a list of words", words);
  }
  const all = [...flags, ...valueFlags, ...twoValueFlags, ...deniedFlags];
  const table = optionSpec(bin.toLowerCase());
  return {
    programLong: table
      ? [
          ...new Set([
            ...[...table.long.keys()].map((n) => `--${n}`),
            ...all.filter((f) => f.startsWith("--")),
          ]),
        ]
      : undefined,
    flags: new Set(flags),
    valueFlags: new Set(valueFlags),
    twoValueFlags: new Set(twoValueFlags),
    deniedFlags: new Set(deniedFlags),
    knownLong: all.filter((f) => f.startsWith("--")),
    numericFlag: config.numeric_flag ?? false,
    minPositional,
    maxPositional,
    pathOperands: config.path_operands ?? false,
    deniedOperandWords: new Set(words),
  };
}

/** Result of {@link validateSafeBinArgv}: ok, or the first reason the argv does not fit. */
export type SafeBinCheck = { ok: true } | { ok: false; reason: string };

/**
 * Resolves a long flag as the program's own parser would: an exact name of the program wins, else a
 * unique prefix among the program's options (not only the profile's: `--fo` must not pass as an
 * allowed `--format` when the program also has `--force`). Without a table for the program only the
 * full name is accepted, since the guard cannot tell which option an abbreviation would pick.
 */
function resolveLongFlag(name: string, profile: SafeBinProfile): string | { error: string } {
  const known = profile.programLong;
  if (known === undefined) {
    if (profile.knownLong.includes(name)) return name;
    return {
      error: profile.knownLong.some((f) => f.startsWith(name))
        ? `${name} must be written in full`
        : `${name} is not an allowed flag`,
    };
  }
  if (known.includes(name)) return name;
  const matches = known.filter((f) => f.startsWith(name));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length > 1) return { error: `${name} is ambiguous (${matches.join(", ")})` };
  return { error: `${name} is not an allowed flag` };
}

/** True when an operand looks like a file path (`/x`, `./x`, `../x`, `~`, `.`, `..`, `C:\x`). */
export function isPathLike(text: string): boolean {
  return /^(\/|\.\.?(\/|$)|~|[A-Za-z]:[\\/])/.test(text);
}

const WORD = /[$A-Za-z_][A-Za-z0-9_]*/g;

function checkValue(flag: string, value: Field | string | undefined): SafeBinCheck {
  if (value === undefined) return { ok: false, reason: `${flag} needs a value` };
  if (typeof value !== "string" && (value.dynamic || value.glob)) {
    return { ok: false, reason: `the value of ${flag} (${value.text}) is expanded at run time` };
  }
  return { ok: true };
}

/**
 * Checks a safe bin's arguments (argv without the program name) against its profile: every flag
 * allowed (long options resolved by unique prefix, in `--f=v`, `--f v` and `-fv` forms), no denied
 * flag, operands within limits, and no globs, expansions or path-like operands the profile forbids.
 */
export function validateSafeBinArgv(args: readonly Field[], profile: SafeBinProfile): SafeBinCheck {
  let positional = 0;
  let operandsOnly = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Field;
    const text = arg.text;
    if (arg.dynamic) return { ok: false, reason: `argument ${text} is expanded at run time` };
    if (!operandsOnly && text === "--") {
      operandsOnly = true;
      continue;
    }
    if (!operandsOnly && text.startsWith("--")) {
      const eq = text.indexOf("=");
      const resolved = resolveLongFlag(eq === -1 ? text : text.slice(0, eq), profile);
      if (typeof resolved !== "string") return { ok: false, reason: resolved.error };
      if (profile.deniedFlags.has(resolved)) return { ok: false, reason: `${resolved} is denied` };
      if (!profile.knownLong.includes(resolved))
        return { ok: false, reason: `${resolved} is not an allowed flag` };
      if (profile.valueFlags.has(resolved)) {
        const value = eq === -1 ? args[++i] : text.slice(eq + 1);
        const check = checkValue(resolved, value);
        if (!check.ok) return check;
      } else if (profile.twoValueFlags.has(resolved)) {
        if (eq !== -1) return { ok: false, reason: `${resolved} takes two separate values` };
        for (let k = 0; k < 2; k++) {
          const check = checkValue(resolved, args[++i]);
          if (!check.ok) return check;
        }
      } else if (eq !== -1) {
        return { ok: false, reason: `${resolved} takes no value` };
      }
      continue;
    }
    if (!operandsOnly && text.startsWith("-") && text.length > 1) {
      if (profile.numericFlag && /^-\d+$/.test(text)) continue;
      for (let j = 1; j < text.length; j++) {
        const flag = `-${text[j]}`;
        if (profile.deniedFlags.has(flag)) return { ok: false, reason: `${flag} is denied` };
        if (profile.valueFlags.has(flag)) {
          const check = checkValue(flag, j < text.length - 1 ? text.slice(j + 1) : args[++i]);
          if (!check.ok) return check;
          break;
        }
        if (!profile.flags.has(flag)) return { ok: false, reason: `${flag} is not an allowed flag` };
      }
      continue;
    }
    positional++;
    if (arg.glob) return { ok: false, reason: `operand ${text} is a glob` };
    if (!profile.pathOperands && isPathLike(text))
      return { ok: false, reason: `operand ${text} looks like a file path` };
    for (const word of text.match(WORD) ?? []) {
      if (profile.deniedOperandWords.has(word))
        return { ok: false, reason: `operand uses ${word}, which is not allowed` };
    }
  }
  if (positional < profile.minPositional)
    return { ok: false, reason: `needs at least ${profile.minPositional} operand(s)` };
  if (positional > profile.maxPositional) {
    return {
      ok: false,
      reason:
        profile.maxPositional === 0
          ? "takes no operands (input comes on stdin)"
          : `takes at most ${profile.maxPositional} operand(s)`,
    };
  }
  return { ok: true };
}
