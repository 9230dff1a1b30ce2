import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import { type CommandGuard, MAX_COMMAND_LENGTH, MAX_PIPES, MAX_SCRIPT_NESTING } from "./command-guard.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

const fill = (unit: string, length = MAX_COMMAND_LENGTH) => unit.repeat(Math.floor(length / unit.length));

describe("check() is bounded: past its limits it stops and asks, with the reason", () => {
  it("asks for a pipeline of 49,000 stages at once, and the parser survives it", () => {
    // Before: 20 s and 2.8 GB, and a broken one aborted the WASM parser, after which even
    // `rm -rf /` only asked.
    for (const command of [fill("a|"), `${fill("a|", 98_000)}a`, fill("a;|"), fill("echo /|")]) {
      const started = process.cpuUsage();
      const verdict = guard.check(command);
      const used = process.cpuUsage(started);
      expect(verdict).toMatchObject({ verdict: "ask", rule: "soft.too-complex" });
      expect(verdict.reason).toMatch(/pipes/);
      expect((used.user + used.system) / 1000).toBeLessThan(1000);
    }
    expect(guard.check("rm -rf /").verdict).toBe("deny");
    expect(guard.check("ls -la").verdict).toBe("allow");
  });

  it(`parses up to ${MAX_PIPES} pipes, and asks past them`, () => {
    expect(guard.check(`${"cat x | ".repeat(MAX_PIPES)}rm -rf /`).verdict).toBe("deny");
    expect(guard.check(`${"cat x | ".repeat(MAX_PIPES + 1)}ls`).rule).toBe("soft.too-complex");
    // Past the limit a hard command in the text is still denied (see past-limits).
    const past = guard.check(`${"cat x | ".repeat(MAX_PIPES + 1)}rm -rf /`);
    expect(past.verdict).toBe("deny");
    expect(past.findings.map((f) => f.rule)).toContain("soft.too-complex");
  });

  it("stops at the node limit on a long list and asks; a deep nesting does not overflow the stack", () => {
    expect(guard.check(fill("a; ")).rule).toBe("soft.too-complex");
    expect(guard.check(`${"(".repeat(30_000)}a${")".repeat(30_000)}`).verdict).toBe("ask");
    expect(guard.check(`x=1; ${"((".repeat(20_000)}x${"))".repeat(20_000)}`).verdict).toBe("ask");
    expect(guard.check("rm -rf /").verdict).toBe("deny");
  });
});

const nest = (wrapper: string, inner: string, levels: number) => {
  let s = inner;
  for (let i = 0; i < levels; i++) s = `${wrapper} ${s}`;
  return s;
};

describe("past a limit the command is too complex: never allowed, denied where a hard command could hide", () => {
  it.each([
    // Before: `env -S` nested past MAX_SCRIPT_NESTING only asked through soft.wrapped-command,
    // and the limit's own branch was never what decided.
    [nest("env -S", "rm -rf /", MAX_SCRIPT_NESTING + 1), "deny", "hard.recursive-delete-system"],
    [nest("env -S", "rm -rf /", MAX_SCRIPT_NESTING + 6), "deny", "hard.recursive-delete-system"],
    [nest("eval", "rm -rf /", MAX_SCRIPT_NESTING + 2), "deny", "hard.recursive-delete-system"],
    [nest("env -S", "reboot", MAX_SCRIPT_NESTING + 2), "deny", "hard.shutdown"],
    [nest("env -S", "cat /etc/shadow", MAX_SCRIPT_NESTING + 2), "deny", "hard.system-secret-read"],
    [nest("eval", "echo x >/dev/sda", MAX_SCRIPT_NESTING + 2), "deny", "hard.block-device-write"],
    // Past the wrapper limit (12 programs that run programs) the rest is read the same way.
    [nest("env", "rm -rf /", 14), "deny", "hard.recursive-delete-system"],
    [nest("nice", "reboot", 14), "deny", "hard.shutdown"],
    // Nothing hard in the rest: still too complex to judge, so it asks.
    [nest("env -S", "ls -la", MAX_SCRIPT_NESTING + 2), "ask", "soft.too-complex"],
    [nest("env", "ls", 14), "ask", "soft.too-complex"],
  ])("%s → %s (%s)", (command, verdict, rule) => {
    const v = guard.check(command);
    expect(v.verdict).toBe(verdict);
    expect(v.findings.map((f) => f.rule)).toContain(rule);
    expect(v.findings.map((f) => f.rule)).toContain("soft.too-complex");
  });

  it("keeps the nesting it follows as it was", () => {
    expect(guard.check(nest("env -S", "rm -rf /", MAX_SCRIPT_NESTING - 1)).verdict).toBe("deny");
    expect(guard.check(nest("env -S", "ls -la", MAX_SCRIPT_NESTING - 1)).verdict).toBe("allow");
    expect(guard.check(nest("env", "ls", 10)).verdict).toBe("allow");
  });

  it("denies a hard command past the node limit", () => {
    expect(guard.check(`${fill("a; ", MAX_COMMAND_LENGTH - 20)}rm -rf /`).verdict).toBe("deny");
    expect(guard.check(`${fill("echo '", 2000)}rm -rf /`).verdict).not.toBe("allow");
  });
});
