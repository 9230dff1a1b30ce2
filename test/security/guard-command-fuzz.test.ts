import { beforeAll, describe, expect, it } from "vitest";
import { randomHardScript, randomString } from "../../src/guard/fuzz-generators.fixture.js";
import { type CommandGuard, GUARD_VERDICTS } from "../../src/guard/index.js";
import { createCommandGuard } from "../../src/platform/index.js";
import { iterations, prng, suiteSeed } from "./seeded.js";

/**
 * The command guard's fuzz test (src/guard/command-guard.fuzz.test.ts) at a larger scale and with
 * its own seeds: GUARD_FUZZ_ITERATIONS cases per property (default 4,000; the unit test runs 2,000–3,000).
 */
const N = iterations("GUARD_FUZZ_ITERATIONS", 4000);

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe(`command guard fuzz, ${N} cases per property`, () => {
  it("never throws and always returns a known verdict with a reason on random strings", () => {
    const seed = suiteSeed("guard-random-strings", 0x5ec0001);
    const rand = prng(seed);
    for (let i = 0; i < N; i++) {
      const input = randomString(rand);
      const where = `seed ${seed} case ${i}: ${JSON.stringify(input)}`;
      let verdict: ReturnType<CommandGuard["check"]>;
      try {
        verdict = guard.check(input);
      } catch (err) {
        throw new Error(`${where} threw: ${(err as Error).message}`);
      }
      expect(GUARD_VERDICTS, where).toContain(verdict.verdict);
      expect(verdict.reason, where).not.toBe("");
    }
  });

  it("never allows a hard-family command wrapped in random constructs, and denies most outright", () => {
    const seed = suiteSeed("guard-hard-scripts", 0x5ec0002);
    const rand = prng(seed);
    const allowed: string[] = [];
    let denied = 0;
    for (let i = 0; i < N; i++) {
      const script = randomHardScript(rand);
      const verdict = guard.check(script);
      if (verdict.verdict === "allow") allowed.push(`case ${i}: ${JSON.stringify(script)}`);
      if (verdict.verdict === "deny") denied++;
    }
    expect(allowed, `seed ${seed}`).toEqual([]);
    expect(denied / N, `seed ${seed}`).toBeGreaterThan(0.9);
  });

  it("never allows a hard-family command handed over as argv (no shell)", () => {
    const seed = suiteSeed("guard-hard-argv", 0x5ec0003);
    const rand = prng(seed);
    const allowed: string[] = [];
    for (let i = 0; i < Math.ceil(N / 4); i++) {
      const script = randomHardScript(rand);
      // The same script run through a shell by argv: sh -c '<script>' must be judged like the script.
      const argv = [rand() < 0.5 ? "sh" : "bash", "-c", script];
      if (guard.checkArgv(argv).verdict === "allow") allowed.push(`case ${i}: ${JSON.stringify(argv)}`);
    }
    expect(allowed, `seed ${seed}`).toEqual([]);
  });
});
