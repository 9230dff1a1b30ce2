/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell scripts, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import type { CommandGuard } from "../../src/guard/index.js";
import { unwrapCommand } from "../../src/guard/unwrap/unwrap.js";
import { createCommandGuard } from "../../src/platform/index.js";
import { execTraceAvailable, OWN_HELPERS, type TraceShell, traceExecs } from "../helpers/exec-trace.js";

/**
 * Regressions of the differential test (guard-differential.test.ts): scripts whose programs the
 * shell really ran while the guard did not name them, found with its fixed seed (99352597) while
 * the guard was being fixed. Each must now be named; the sandbox run checks the list is real.
 */
const CASES: ReadonlyArray<readonly [TraceShell, string, readonly string[]]> = [
  ["bash", "sh -c '{ time stdbuf -o0 \\id${IFS}-u; }'", ["time", "stdbuf", "id"]],
  [
    "bash",
    "declare 'a[$(cat <(bash -c \"chmod 600 ./missing\") | tee log.txt)]=1'",
    ["cat", "bash", "chmod", "tee"],
  ],
  [
    "bash",
    "x='y[$(nice -n 5 $'\\''\\x74\\x6f\\x75\\x63\\x68'\\'' \\\nr'\\'''\\''an)]'; echo $((x))",
    ["nice", "touch"],
  ],
  ["bash", "x='y[$(nice -n 5 u'\\'''\\''name -a)]'; [[ $x -eq 1 ]]", ["nice", "uname"]],
  [
    "bash",
    "x='y[$({ time case x in x) for i in 1 2; do echo ok\n\"uname\" -a; done;; esac; })]'; echo $((x))",
    ["uname"],
  ],
  ["bash", "sh -c '((( stdbuf -o0 \"cp\" /etc/hostname ./h )))'", ["sh", "stdbuf", "cp"]],
  ["bash", "declare 'a[$(case x in x) false || head -c 1 /etc/hostname;; esac)]=1'", ["head"]],
  [
    "bash",
    "sh -c '(({ time nice -n 5 \"dd\" if=/dev/zero of=./z bs=1 count=1; }))'",
    ["sh", "time", "nice", "dd"],
  ],
  ["dash", "[[ 1 || uname -a ]]", ["uname"]],
  ["dash", "true &>/dev/null; id -u", ["id"]],
  ["bash", "p='$(touch ran)'; echo \"${p@P}\"", ["touch"]],
  ["bash", "printf -v 'a[$(id -u)]' %s 1", ["id"]],
  ["bash", "[[ -v 'a[$(uname -a)]' ]]", ["uname"]],
  // random seed 169837971, case 294: dash has no time keyword, also inside backquotes
  [
    "dash",
    "echo `echo start; { time cp \\\\\n{/etc/hostname,}${IFS}./h; }` | tee log.txt",
    ["time", "cp", "tee"],
  ],
  // random seeds 109039183 (case 23) and 551940078 (case 219): a backquote tree-sitter cannot parse
  ["bash", "echo `false || x=$( false || $'\\\\x63\\\\x61\\\\x74' /etc/hostname )`", ["cat"]],
  [
    "bash",
    "echo `false || x=$( $'\\\\x63\\\\x68\\\\x6d\\\\x6f\\\\x64' 600 ./missing )` 2>/dev/null",
    ["chmod"],
  ],
  // random seed 1196873740 (case 61): sh -c inside a backquote tree-sitter cannot parse
  [
    "bash",
    "echo `while true; do sh -c 'eval '\\\\''$'\\\\''\\\\'\\\\'''\\\\''\\\\x75\\\\x6e\\\\x61\\\\x6d\\\\x65'\\\\''\\\\'\\\\'''\\\\'' -\\\\a'\\\\'''; break; done`",
    ["sh"],
  ],
  // seed 99352597 (cases 61 and 69): sed `e` and ed `!` run their command with sh -c
  ["bash", "echo | sed '1e uname -a'", ["sed", "sh", "uname"]],
  ["bash", "ed -s <<< '!id -u'", ["ed", "sh", "id"]],
  ["bash", "sqlite3 :memory: '.shell touch ran'", ["sqlite3", "sh", "touch"]],
  // every runner generator on every traceable command: less runs LESSOPEN with sh -c, tmux runs
  // $SHELL -c (nologin for the sandbox's user until SHELL was set, and never analysed before)
  ["bash", "printf 'a\\n' > f; LESSOPEN='|touch ran %s' less f", ["less", "sh", "touch"]],
  [
    "bash",
    "SHELL=/bin/sh tmux -f /dev/null -L t new-session -d 'id -u; tmux -L t wait-for -S d' \\; wait-for d",
    ["tmux", "sh", "id"],
  ],
  ["bash", "c=t; c+=ouch; $c ran", ["touch"]],
];

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

function named(script: string, shell: TraceShell): Set<string> {
  const names = new Set<string>();
  for (const cmd of guard.analyse(script, { dialect: shell === "dash" ? "posix" : "bash" }).commands)
    for (const inv of unwrapCommand(cmd).invocations) {
      names.add(inv.name);
      for (const helper of OWN_HELPERS[inv.name] ?? []) names.add(helper);
    }
  return names;
}

describe("guard differential regressions", () => {
  it.each(CASES.map((c) => [...c]))("%s %j names %j", (shell, script, programs) => {
    const names = named(script as string, shell as TraceShell);
    for (const p of programs as string[]) expect([...names], p).toContain(p);
  });

  it.skipIf(!execTraceAvailable() && !process.env.CI)(
    "the shells really run those programs",
    { timeout: 120_000 },
    async () => {
      const runs = await traceExecs(
        CASES.map((c) => c[1]),
        CASES.map((c) => c[0]),
        1,
      );
      runs.forEach((run, i) => {
        const [shell, script, programs] = CASES[i] as (typeof CASES)[number];
        expect(run.ran, script).toBe(true);
        for (const p of programs) expect(run.programs, `${shell} ${script}`).toContain(p);
        const names = named(script, shell);
        expect(
          run.programs.filter((p) => !names.has(p)),
          `${shell} ${script}`,
        ).toEqual([]);
      });
    },
  );
});
