import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import { type CommandGuard, MAX_COMMAND_LENGTH, MAX_PIPES } from "./command-guard.js";

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
    expect(guard.check(`${"cat x | ".repeat(MAX_PIPES + 1)}rm -rf /`).rule).toBe("soft.too-complex");
  });

  it("stops at the node limit on a long list and asks; a deep nesting does not overflow the stack", () => {
    expect(guard.check(fill("a; ")).rule).toBe("soft.too-complex");
    expect(guard.check(`${"(".repeat(30_000)}a${")".repeat(30_000)}`).verdict).toBe("ask");
    expect(guard.check(`x=1; ${"((".repeat(20_000)}x${"))".repeat(20_000)}`).verdict).toBe("ask");
    expect(guard.check("rm -rf /").verdict).toBe("deny");
  });
});
