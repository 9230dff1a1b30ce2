import { compileSafeBinProfile, type SafeBinProfile, type SafeBinProfileConfig } from "./safe-bins.js";

/**
 * The shipped safe-bin profiles: read-only text filters that read stdin and write stdout. Each
 * allows only the flags listed; operands are refused unless noted (files are read with a tool, not
 * through a safe bin). Operators add or replace profiles with `tools.exec.safe_bins`.
 */
export const DEFAULT_SAFE_BIN_PROFILES: Readonly<Record<string, SafeBinProfileConfig>> = {
  head: {
    flags: ["-q", "-v", "-z", "--quiet", "--silent", "--verbose", "--zero-terminated"],
    value_flags: ["-n", "-c", "--lines", "--bytes"],
    numeric_flag: true,
  },
  tail: {
    flags: ["-q", "-v", "-z", "--quiet", "--silent", "--verbose", "--zero-terminated"],
    value_flags: ["-n", "-c", "--lines", "--bytes"],
    // Following never ends, and --pid / --retry watch other things.
    denied_flags: ["-f", "-F", "--follow", "--retry", "--pid", "-s", "--sleep-interval"],
    numeric_flag: true,
  },
  wc: {
    flags: ["-c", "-m", "-l", "-w", "-L", "--bytes", "--chars", "--lines", "--words", "--max-line-length"],
    denied_flags: ["--files0-from"],
  },
  cut: {
    flags: ["-s", "-z", "-n", "--complement", "--only-delimited", "--zero-terminated"],
    value_flags: [
      "-b",
      "-c",
      "-f",
      "-d",
      "--bytes",
      "--characters",
      "--fields",
      "--delimiter",
      "--output-delimiter",
    ],
  },
  uniq: {
    flags: [
      "-c",
      "-d",
      "-D",
      "-u",
      "-i",
      "-z",
      "--count",
      "--repeated",
      "--unique",
      "--ignore-case",
      "--zero-terminated",
    ],
    value_flags: ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"],
  },
  tr: {
    flags: ["-c", "-C", "-d", "-s", "-t", "--complement", "--delete", "--squeeze-repeats", "--truncate-set1"],
    min_positional: 1,
    max_positional: 2,
    // Operands are character sets (`tr / _`), never files.
    path_operands: true,
  },
  sort: {
    flags: [
      "-b",
      "-d",
      "-f",
      "-g",
      "-i",
      "-M",
      "-h",
      "-n",
      "-R",
      "-r",
      "-V",
      "-c",
      "-C",
      "-s",
      "-u",
      "-z",
      "--ignore-leading-blanks",
      "--dictionary-order",
      "--ignore-case",
      "--general-numeric-sort",
      "--ignore-nonprinting",
      "--month-sort",
      "--human-numeric-sort",
      "--numeric-sort",
      "--random-sort",
      "--reverse",
      "--version-sort",
      "--check",
      "--stable",
      "--unique",
      "--zero-terminated",
    ],
    value_flags: [
      "-k",
      "-t",
      "-S",
      "--key",
      "--field-separator",
      "--buffer-size",
      "--parallel",
      "--batch-size",
    ],
    // -o writes a file; --compress-program runs one; the rest read or write files.
    denied_flags: [
      "-o",
      "--output",
      "-T",
      "--temporary-directory",
      "--compress-program",
      "--files0-from",
      "--random-source",
    ],
  },
  grep: {
    flags: [
      "-i",
      "-v",
      "-w",
      "-x",
      "-c",
      "-n",
      "-o",
      "-q",
      "-s",
      "-E",
      "-F",
      "-G",
      "-P",
      "-h",
      "-H",
      "-a",
      "-b",
      "-z",
      "--ignore-case",
      "--invert-match",
      "--word-regexp",
      "--line-regexp",
      "--count",
      "--line-number",
      "--only-matching",
      "--quiet",
      "--silent",
      "--no-messages",
      "--extended-regexp",
      "--fixed-strings",
      "--basic-regexp",
      "--perl-regexp",
      "--no-filename",
      "--with-filename",
      "--text",
      "--byte-offset",
      "--null-data",
    ],
    // The pattern comes only from -e, so no operand can be mistaken for a pattern or a file.
    value_flags: [
      "-e",
      "-m",
      "-A",
      "-B",
      "-C",
      "--regexp",
      "--max-count",
      "--after-context",
      "--before-context",
      "--context",
      "--label",
    ],
    denied_flags: [
      "-f",
      "--file",
      "-r",
      "-R",
      "--recursive",
      "--dereference-recursive",
      "-d",
      "--directories",
      "-D",
      "--devices",
      "--exclude-from",
      "--include",
      "--exclude",
      "--exclude-dir",
    ],
  },
  jq: {
    flags: [
      "-c",
      "-r",
      "-j",
      "-a",
      "-s",
      "-n",
      "-e",
      "-S",
      "-C",
      "-M",
      "-R",
      "--tab",
      "--compact-output",
      "--raw-output",
      "--join-output",
      "--ascii-output",
      "--slurp",
      "--null-input",
      "--exit-status",
      "--sort-keys",
      "--color-output",
      "--monochrome-output",
      "--seq",
      "--stream",
      "--raw-input",
    ],
    value_flags: ["--indent"],
    two_value_flags: ["--arg", "--argjson"],
    // -f / --from-file read the program from a file; the others read files or modules.
    denied_flags: [
      "-f",
      "--from-file",
      "-L",
      "--library-path",
      "--rawfile",
      "--slurpfile",
      "--argfile",
      "--args",
      "--jsonargs",
    ],
    max_positional: 1,
    // The one operand is the filter (`.` is the identity filter, not a directory); files are refused
    // by the operand limit.
    path_operands: true,
    // `env` and `$ENV` expose the environment (secrets); include/import load modules from disk.
    denied_operand_words: ["env", "$ENV", "include", "import", "input_filename", "$__loc__", "$__prog_args"],
  },
};

/**
 * The effective profiles: the shipped ones, with an operator's profile for the same name replacing
 * the shipped one whole (so an override never silently inherits a flag). Throws `CONFIG_INVALID`
 * for an invalid operator profile.
 */
export function resolveSafeBinProfiles(
  operator: Readonly<Record<string, SafeBinProfileConfig>> = {},
): ReadonlyMap<string, SafeBinProfile> {
  const merged = { ...DEFAULT_SAFE_BIN_PROFILES, ...operator };
  const out = new Map<string, SafeBinProfile>();
  for (const [bin, config] of Object.entries(merged))
    out.set(bin.toLowerCase(), compileSafeBinProfile(bin, config));
  return out;
}
