import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../shared/index.js";
import { type Field, literalField } from "../shell/index.js";
import { DEFAULT_SAFE_BIN_PROFILES, resolveSafeBinProfiles } from "./safe-bin-profiles.js";
import { compileSafeBinProfile, validateSafeBinArgv } from "./safe-bins.js";

const profiles = resolveSafeBinProfiles();

function check(argv: string[]) {
  const [bin, ...args] = argv;
  const profile = profiles.get(bin as string);
  if (!profile) throw new Error(`no profile for ${bin}`);
  return validateSafeBinArgv(args.map(literalField), profile);
}

const FITS: string[][] = [
  ["head", "-n", "5"],
  ["head", "-n5"],
  ["head", "-5"],
  ["head", "--lines=5"],
  ["head", "--lines", "5"],
  ["head", "--li=5"],
  ["tail", "-n", "+2"],
  ["tail", "-c", "100"],
  ["wc", "-l"],
  ["wc", "-lw"],
  ["cut", "-d,", "-f1"],
  ["cut", "-d", ":", "-f", "1,3"],
  ["uniq", "-c"],
  ["tr", "a-z", "A-Z"],
  ["tr", "-d", "\\n"],
  ["tr", "/", "_"],
  ["sort", "-rn"],
  ["sort", "-t", ",", "-k", "2"],
  ["sort", "--key=2,2", "--numeric-sort"],
  ["grep", "-e", "needle"],
  ["grep", "--regexp=needle", "-i"],
  ["grep", "-ie", "needle"],
  ["grep", "-c", "-e", "TODO"],
  ["jq", ".name"],
  ["jq", "-r", ".dependencies | keys[]"],
  ["jq", "--arg", "k", "v", ".[$k]"],
  ["jq", "-c", "."],
];

const MISFITS: Array<[string[], RegExp]> = [
  [["head", "/etc/passwd"], /takes no operands|path/],
  [["head", "-n", "5", "file.txt"], /takes no operands/],
  [["tail", "-f"], /-f is denied/],
  [["tail", "--follow=name"], /--follow is denied/],
  [["tail", "--fo"], /--follow is denied/],
  [["wc", "--files0-from=list"], /--files0-from is denied/],
  [["wc", "--files0"], /--files0-from is denied/],
  [["sort", "-o", "out.txt"], /-o is denied/],
  [["sort", "-rno", "out.txt"], /-o is denied/],
  [["sort", "--output=out.txt"], /--output is denied/],
  [["sort", "--output", "out.txt"], /--output is denied/],
  [["sort", "--out=x"], /--output is denied/],
  [["sort", "--compress-program=sh"], /--compress-program is denied/],
  [["sort", "--comp=sh"], /--compress-program is denied/],
  [["sort", "-T", "/tmp"], /-T is denied/],
  [["sort", "--x"], /not an allowed flag/],
  [["sort", "data.csv"], /takes no operands/],
  [["grep", "needle"], /takes no operands/],
  [["grep", "-e", "x", "file"], /takes no operands/],
  [["grep", "-e", "x", "--", ".env"], /takes no operands/],
  [["grep", "-f", "patterns"], /-f is denied/],
  [["grep", "-rf", "x"], /-r is denied/],
  [["grep", "-r", "-e", "x"], /-r is denied/],
  [["grep", "--recursive", "-e", "x"], /--recursive is denied/],
  [["grep", "--rec", "-e", "x"], /ambiguous|denied/],
  [["grep", "--include=*.ts", "-e", "x"], /--include is denied/],
  [["grep", "-e"], /needs a value/],
  [["jq", "-f", "prog.jq"], /-f is denied/],
  [["jq", "--from-file", "prog.jq"], /--from-file is denied/],
  [["jq", "--rawfile", "a", "/etc/passwd"], /--rawfile is denied/],
  [["jq", "--slurpfile", "a", "x"], /--slurpfile is denied/],
  [["jq", "-L", "/tmp", "."], /-L is denied/],
  [["jq", "-n", "env"], /env/],
  [["jq", "-n", "$ENV.HOME"], /\$ENV/],
  [["jq", "-n", "env.AWS_SECRET_ACCESS_KEY"], /env/],
  [["jq", 'include "x"; .'], /include/],
  [["jq", 'import "x" as y; .'], /import/],
  [["jq", ".", "secrets.json"], /at most 1/],
  [["jq", "--arg", "k"], /needs a value/],
  [["jq", "--arg=k", "v"], /two separate values/],
  [["tr"], /at least 1/],
  [["tr", "a", "b", "c"], /at most 2/],
  [["cut", "-f1", "data.csv"], /takes no operands/],
  [["uniq", "in.txt", "out.txt"], /takes no operands/],
  [["head", "--verbose=yes"], /takes no value/],
  [["head", "-x"], /not an allowed flag/],
];

describe("safe-bin argv profiles", () => {
  it.each(FITS.map((argv) => [argv]))("accepts %j", (argv) => {
    expect(check(argv)).toEqual({ ok: true });
  });

  it.each(MISFITS)("refuses %j", (argv, reason) => {
    const result = check(argv);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it("refuses an operand that is a glob or an expansion", () => {
    const profile = profiles.get("tr");
    if (!profile) throw new Error("tr profile missing");
    const glob: Field = { text: "[a-z]", bare: "[a-z]", dynamic: false, glob: true };
    const dynamic: Field = { text: "$X", bare: "", dynamic: true, glob: false };
    expect(validateSafeBinArgv([glob], profile).ok).toBe(false);
    expect(validateSafeBinArgv([dynamic], profile).ok).toBe(false);
  });

  it("ships profiles for exactly the read-only text tools", () => {
    expect(Object.keys(DEFAULT_SAFE_BIN_PROFILES).sort()).toEqual([
      "cut",
      "grep",
      "head",
      "jq",
      "sort",
      "tail",
      "tr",
      "uniq",
      "wc",
    ]);
  });
});

describe("operator safe-bin profiles", () => {
  it("adds an operator profile and replaces a shipped one whole", () => {
    const resolved = resolveSafeBinProfiles({
      column: { flags: ["-t"], value_flags: ["-s"] },
      head: { flags: ["-q"] },
    });
    expect(validateSafeBinArgv([literalField("-t")], resolved.get("column")!).ok).toBe(true);
    expect(validateSafeBinArgv([literalField("-n"), literalField("5")], resolved.get("head")!).ok).toBe(
      false,
    );
  });

  it.each([
    ["awk", {}],
    ["sed", {}],
    ["find", {}],
    ["xargs", {}],
    ["python3", {}],
    ["bash", {}],
  ])("refuses %s as a safe bin whatever the profile says", (bin, config) => {
    expect(() => compileSafeBinProfile(bin, config)).toThrow(/can never be a safe bin/);
  });

  it.each([
    [{ flags: "-n" }, /flags must be a list/],
    [{ flags: ["n"] }, /is not a flag/],
    [{ max_positional: -1 }, /whole number/],
    [{ min_positional: 2, max_positional: 1 }, /smaller than/],
    [{ flags: ["-o"], denied_flags: ["-o"] }, /both allowed and denied/],
    [{ colour: true }, /unknown key "colour"/],
    [{ path_operands: "yes" }, /true or false/],
  ])("rejects the invalid profile %j with CONFIG_INVALID", (config, message) => {
    let error: unknown;
    try {
      compileSafeBinProfile("mytool", config as never);
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error, "CONFIG_INVALID")).toBe(true);
    expect(String((error as Error).message)).toMatch(message);
    expect(String((error as Error).message)).toContain("tools.exec.safe_bins.mytool");
  });
});
