/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { createExecPolicy, type ExecPolicy } from "../exec-policy.js";
import { bashOnlyConstructs, nestedDialect, posixReading } from "./shell-dialect.js";

let guard: CommandGuard;
let allowlist: ExecPolicy;
beforeAll(async () => {
  guard = await createCommandGuard();
  allowlist = createExecPolicy(guard, {
    security: "allowlist",
    ask: "on-miss",
    resolveBinary: (c) => (c.includes("/") ? c : `/usr/bin/${c}`),
  });
});

const rules = (command: string) => guard.check(command).findings.map((f) => f.rule);

describe("shell dialect: a script a POSIX shell runs is judged as dash reads it too", () => {
  it.each([
    // dash: `[[` is a command word, so `||` inside it is a list operator and rm runs.
    ["sh -c '[[ 1 || rm -rf / ]]'", "deny"],
    ["dash -c '[[ -n x ]] || rm -rf / ]]'", "deny"],
    ["find . -exec sh -c '[[ x || mkfs.ext4 /dev/sda ]]' \\;", "deny"],
    // dash: `((` is two subshells.
    ["sh -c '((rm -rf /))'", "deny"],
    // dash: `cmd &> f` is `cmd &` and `> f`.
    ["sh -c 'head -n1 x &>/dev/sda'", "deny"],
  ])("%s → %s", (command, verdict) => {
    expect(guard.check(command).verdict).toBe(verdict);
  });

  it.each([
    "sh -c 'echo $'\\''x'\\'''",
    "sh -c '[[ -f x ]] && head -n1 x'",
    "sh -c 'a=(1 2); echo ${a[1]}'",
    "sh -c 'cat <<< x'",
    "sh -c 'echo ${x@P}'",
    "git -c alias.x='!f() { [[ 1 ]]; }; f' x",
  ])("flags bash-only constructs in %s", (command) => {
    expect(rules(command)).toContain("soft.shell-dialect");
  });

  it("does not flag POSIX scripts, nor bash-only constructs bash itself runs", () => {
    expect(rules("sh -c 'ls -la; echo $((1+2))'")).not.toContain("soft.shell-dialect");
    expect(rules("bash -c '[[ -f x ]] && echo y'")).not.toContain("soft.shell-dialect");
    expect(rules("[[ -f x ]] && echo y")).not.toContain("soft.shell-dialect");
    expect(rules("sh -c 'eval \"echo ok\"'")).not.toContain("soft.shell-dialect");
  });

  it("knows which shell runs a nested script", () => {
    expect(nestedDialect(["bash"], "posix")).toBe("bash");
    expect(nestedDialect(["sh"], "bash")).toBe("posix");
    expect(nestedDialect(["find", "sh"], "bash")).toBe("posix");
    expect(nestedDialect(["eval"], "posix")).toBe("posix");
    expect(nestedDialect(["eval"], "bash")).toBe("bash");
    expect(nestedDialect(["tar"], "bash")).toBe("posix");
    expect(posixReading("ls")).toBeUndefined();
    expect(posixReading("[[ a || b ]]")).toBe("\\[[ a || b ]]");
    expect(posixReading("echo $((1)); ((x))")).toBe("echo $((1)); ( (x))");
    expect(posixReading("(((x)))")).toBe("( ( (x)))");
    expect(bashOnlyConstructs("echo $((1+2))")).toEqual([]);
  });
});

describe("run-time evaluation: what bash evaluates from values the guard cannot know", () => {
  it.each([
    // A literal the guard knows is evaluated as an expression, and its subscript runs rm.
    ["x='y[$(rm -rf /)]'; echo $((x))", "deny"],
    ["x='y[$(rm -rf /)]'; [[ $x -eq 1 ]]", "deny"],
    ["x='a[$(rm -rf /)]'; [[ -v $x ]]", "deny"],
    ["declare 'a[$(rm -rf /)]=1'", "deny"],
    ["printf -v 'a[$(rm -rf /)]' %s 1", "deny"],
    ["p='$(rm -rf /)'; echo ${p@P}", "deny"],
    ["x=$'a[$(rm -rf /)]'; (( x ))", "deny"],
  ])("analyses the evaluated literal of %s → %s", (command, verdict) => {
    expect(guard.check(command).verdict).toBe(verdict);
  });

  it.each([
    "head -n $((n)) f",
    "read n < f; head -n $((n)) f",
    "[[ $1 -eq 1 ]] && head -n 1 f",
    "(( $(cat f) )) && head -n 1 f",
    "head -n ${x@P} f",
    "head -n ${!x} f",
    'unset "a[$i]"; head -n 1 f',
    "for x in $(cat f); do head -n $((x)) f; done",
    '[ -v "a[$k]" ] && head -n 1 f',
  ])("is never passed as safe bins: %s", (command) => {
    const verdict = allowlist.check(command);
    expect(verdict.verdict).toBe("ask");
    expect(verdict.reason).toMatch(/known only at run time/);
  });

  it.each([
    "head -n 5",
    "echo $((3+4))",
    "i=3; echo $((i+1))",
    "echo $(( $# + 1 ))",
    "for ((i=0;i<3;i++)); do echo $i; done",
    "[[ -f x ]] && echo y",
  ])("judges integer arithmetic soundly: %s", (command) => {
    expect(guard.analyse(command).unsound).toEqual([]);
  });
});
