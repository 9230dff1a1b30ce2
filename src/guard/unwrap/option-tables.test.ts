import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SAFE_BIN_PROFILES } from "../safe-bins/index.js";
import { literalField } from "../shell/index.js";
import { longCandidates, readOptions } from "./option-reader.js";
import { optionSpec } from "./option-tables.js";

/**
 * Differential test of long-option abbreviations: every prefix of the options the guard's checks
 * look for is given to the real program, and the program's answer (accepted, ambiguous,
 * unrecognised) must be the guard's (one option, several, none). Skipped where a program is not
 * installed.
 */

type Answer = "one" | "several" | "none";

function installed(program: string): boolean {
  return spawnSync(program, ["--version"], { stdio: "ignore" }).status === 0;
}

function programAnswer(argv: string[], cwd?: string): Answer {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: "utf8", cwd, timeout: 10_000 });
  const err = `${r.stderr}${r.stdout}`.toLowerCase();
  if (/ambiguous/.test(err)) return "several";
  if (/unrecognized option|unknown option|is unknown|not a recognised|unknown switch/.test(err))
    return "none";
  return "one";
}

function guardAnswer(table: string, written: string): Answer {
  const spec = optionSpec(table);
  if (!spec) throw new Error(`no table for ${table}`);
  const n = longCandidates(written, spec).length;
  return n === 1 ? "one" : n > 1 ? "several" : "none";
}

function prefixes(name: string): string[] {
  return Array.from({ length: name.length }, (_, i) => name.slice(0, i + 1));
}

const CASES: Array<{
  table: string;
  options: string[];
  argv: (written: string) => string[];
  git?: boolean;
}> = [
  {
    table: "tar",
    options: [
      "to-command",
      "use-compress-program",
      "checkpoint-action",
      "info-script",
      "new-volume-script",
      "rsh-command",
    ],
    argv: (w) => ["tar", `--${w}=x`, "--help"],
  },
  { table: "sort", options: ["compress-program", "output"], argv: (w) => ["sort", `--${w}=x`, "--help"] },
  {
    table: "curl",
    options: ["output", "remote-name", "proxy", "resolve", "unix-socket"],
    argv: (w) => ["curl", `--${w}`, "x", "--help"],
  },
  {
    table: "git push",
    options: ["force", "force-with-lease", "delete", "mirror", "receive-pack"],
    argv: (w) => ["git", "push", `--${w}`, "nowhere-such-remote"],
    git: true,
  },
];

describe("option tables agree with the real programs on abbreviations", () => {
  for (const c of CASES) {
    const program = c.table.split(" ")[0] as string;
    it.skipIf(!installed(program))(`${c.table}: every prefix of ${c.options.join(", ")}`, () => {
      const cwd = c.git ? mkdtempSync(join(tmpdir(), "guard-opt-")) : undefined;
      if (cwd) spawnSync("git", ["init", "-q", cwd]);
      const mismatches: string[] = [];
      for (const option of c.options) {
        for (const written of prefixes(option)) {
          const real = programAnswer(c.argv(written), cwd);
          const ours = guardAnswer(c.table, written);
          if (real !== ours) mismatches.push(`--${written}: ${program} ${real}, guard ${ours}`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }
});

describe("safe-bin profiles' long options agree with the real programs", () => {
  for (const bin of ["head", "tail", "wc", "cut", "uniq", "tr", "sort", "grep"]) {
    const profile = DEFAULT_SAFE_BIN_PROFILES[bin];
    const names = [
      ...(profile?.flags ?? []),
      ...(profile?.value_flags ?? []),
      ...(profile?.denied_flags ?? []),
    ].filter((f) => f.startsWith("--"));
    it.skipIf(!installed(bin))(`${bin}: every prefix of the profile's ${names.length} long options`, () => {
      const mismatches: string[] = [];
      for (const name of names) {
        const takesValue =
          [...(profile?.value_flags ?? [])].includes(name) ||
          /pid|sleep|files0|output$|temporary|compress|random-source|file$|include|exclude|directories|devices/.test(
            name,
          );
        for (const written of prefixes(name.slice(2))) {
          const argv = takesValue ? [bin, `--${written}=1`, "--help"] : [bin, `--${written}`, "--help"];
          const real = programAnswer(argv);
          const ours = guardAnswer(bin, written);
          if (real !== ours) mismatches.push(`--${written}: ${bin} ${real}, guard ${ours}`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }
});

describe("option reader", () => {
  const read = (table: string, words: string[]) => {
    const spec = optionSpec(table);
    if (!spec) throw new Error(table);
    return readOptions(words.map(literalField), spec);
  };

  it.each([
    ["tar", ["--to-com=reboot", "-xf", "a.tar"], "--to-command", "reboot"],
    ["tar", ["--to-command", "reboot", "-xf", "a.tar"], "--to-command", "reboot"],
    ["tar", ["-xzIreboot", "-f", "a.tar"], "--use-compress-program", "reboot"],
    ["tar", ["-x", "-I", "reboot"], "--use-compress-program", "reboot"],
    ["tar", ["xIf", "reboot", "a.tar"], "--use-compress-program", "reboot"],
    ["tar", ["cfI", "a.tar", "reboot", "."], "--use-compress-program", "reboot"],
    ["tar", ["--use=reboot", "-c", "."], "--use-compress-program", "reboot"],
    ["sort", ["--compress-prog=reboot"], "--compress-program", "reboot"],
    ["sort", ["-ofile", "in"], "--output", "file"],
    ["sort", ["-o", "file", "in"], "--output", "file"],
    ["curl", ["-sSLo", "x", "https://e.example"], "--output", "x"],
    ["wget", ["-qO-", "https://e.example"], "--output-document", "-"],
    ["git push", ["-fu", "origin", "main"], "--force", undefined],
  ])("%s %j reads %s = %s", (table, words, name, value) => {
    const r = read(table, words);
    const option = r.options.find((o) => o.name === name);
    expect(option).toBeDefined();
    expect(option?.value?.text).toBe(value);
  });

  it("reports an ambiguous prefix as every option it may mean", () => {
    const names = read("git push", ["--forc"]).options.map((o) => o.name);
    expect(names).toEqual(expect.arrayContaining(["--force", "--force-with-lease", "--force-if-includes"]));
  });

  it("keeps operands apart from option values, in any order (GNU permutation)", () => {
    expect(read("sort", ["in.txt", "-o", "out.txt", "-k", "2"]).operands.map((o) => o.text)).toEqual([
      "in.txt",
    ]);
  });
});
