import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { prng, randomHardScript, randomString } from "./fuzz-generators.fixture.js";
import { checkUrlWithAddresses } from "./network/index.js";
import { createPathFence, memoryFsView } from "./paths/index.js";
import { GUARD_VERDICTS } from "./verdict/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("command guard fuzz", () => {
  it("never throws and always returns a known verdict on random strings", () => {
    const rand = prng(0x5eed);
    for (let i = 0; i < 3000; i++) {
      const input = randomString(rand);
      const verdict = guard.check(input);
      expect(GUARD_VERDICTS, input).toContain(verdict.verdict);
      expect(verdict.reason, input).not.toBe("");
    }
  });

  it("never allows a hard-family command wrapped in random constructs", () => {
    const rand = prng(0xbadc0de);
    const allowed: string[] = [];
    let denied = 0;
    const total = 2000;
    for (let i = 0; i < total; i++) {
      const script = randomHardScript(rand);
      const verdict = guard.check(script);
      if (verdict.verdict === "allow") allowed.push(script);
      if (verdict.verdict === "deny") denied++;
    }
    expect(allowed).toEqual([]);
    // Most wrapped hard commands are still recognised as hard, not merely asked about.
    expect(denied / total).toBeGreaterThan(0.9);
  });

  it("never throws on random argv, URLs and paths either", () => {
    const rand = prng(0xa11);
    const fence = createPathFence({
      workspaceRoot: "/ws",
      homeDir: "/home/me",
      fs: memoryFsView({ "/ws": "directory", "/ws/l": { link: "../etc" }, "/etc": "directory" }),
    });
    for (let i = 0; i < 1000; i++) {
      const text = randomString(rand);
      expect(GUARD_VERDICTS).toContain(guard.checkArgv(text.split(" ")).verdict);
      expect(GUARD_VERDICTS).toContain(checkUrlWithAddresses(`http://${text}/`, [text]).verdict);
      expect(["allow", "deny"]).toContain(fence.check(text, i % 2 === 0 ? "read" : "write").verdict);
    }
  });
});
