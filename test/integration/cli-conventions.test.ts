import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands/index.js";
import { REPO_ROOT } from "../helpers/cli-process.js";

/**
 * The CLI's conventions, through the real bin (`node bin/echo-runner.js ...`): every command group
 * answers `<group> --help` and `help <group>` with its subcommands and exit 0; `--version` / `-V`.
 */
const run = promisify(execFile);
const BIN = resolve(REPO_ROOT, "bin/echo-runner.js");

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: REPO_ROOT,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Runs `task` over `items`, at most `lanes` at a time (each is a process start). */
async function inLanes<T, R>(
  items: readonly T[],
  lanes: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i]!);
      }
    }),
  );
  return out;
}

/** Every group: the first word of each command with subcommands, derived from the command list. */
const GROUPS = [...new Set(COMMANDS.filter((c) => c.words.length > 1).map((c) => c.words[0]!))];

describe("the CLI's conventions (real bin)", () => {
  it("has the documented command groups", () => {
    expect(GROUPS).toEqual(
      expect.arrayContaining([
        "schedules",
        "approvals",
        "jobs",
        "audit",
        "tools",
        "guard",
        "gate",
        "config",
        "policy",
      ]),
    );
  });

  it("lists every group's subcommands for `<group> --help`, `<group> -h` and `help <group>`, exit 0", async () => {
    const cases = GROUPS.flatMap((group) => [
      [group, "--help"],
      [group, "-h"],
      ["help", group],
    ]);
    const results = await inLanes(cases, 3, cli);
    cases.forEach((args, i) => {
      const result = results[i]!;
      const group = args[0] === "help" ? args[1]! : args[0]!;
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      for (const command of COMMANDS.filter((c) => c.words[0] === group && c.words.length > 1)) {
        expect(result.stdout, args.join(" ")).toContain(command.summary);
        expect(result.stdout, args.join(" ")).toContain(command.usage);
      }
    });
  }, 240_000);

  it("answers a group without a subcommand, or with an unknown one, with its subcommands and exit 2", async () => {
    const [bare, unknown, nowhere] = await inLanes(
      [["schedules"], ["schedules", "frobnicate"], ["nope", "--help"]],
      3,
      cli,
    );
    expect(bare!.code).toBe(2);
    expect(bare!.stderr).toContain("schedules add");
    expect(unknown!.code).toBe(2);
    expect(unknown!.stderr).toContain('unknown command "schedules frobnicate"');
    expect(unknown!.stderr).toContain("schedules next");
    expect(nowhere!.code).toBe(2);
    expect(nowhere!.stderr).toContain('unknown command "nope --help"');
  }, 120_000);

  it("prints the package version for --version and -V, exit 0", async () => {
    const { version } = JSON.parse(readFileSync(resolve(REPO_ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const results = await inLanes([["--version"], ["-V"], ["help", "schedules", "add"]], 3, cli);
    for (const result of results.slice(0, 2)) {
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`echo-runner ${version}\n`);
    }
    expect(results[2]!.code).toBe(0);
    expect(results[2]!.stdout).toContain("usage: echo-runner schedules add");
  }, 120_000);
});
