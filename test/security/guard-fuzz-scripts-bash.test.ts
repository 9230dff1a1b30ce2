import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzCommand, randomHardScript, WRAPPERS } from "../../src/guard/fuzz-generators.fixture.js";
import { type BashMarkerSandbox, createBashMarkerSandbox } from "../helpers/bash-marker.js";
import { iterations, prng, suiteSeed } from "./seeded.js";

/**
 * The fuzz generator's scripts must really be what they claim: the wrapped command runs. Checked by
 * real bash on the same shapes with a harmless command (`touch ran`) in place of the hard one — a
 * wrapper that quotes wrongly turns the command into an argument and the guard test into a no-op.
 */
/** Bash runs are slow, so a tenth of the guard fuzz cases (default 400). */
const N = Math.ceil(iterations("GUARD_FUZZ_ITERATIONS", 4000) / 10);

const MARKER: readonly FuzzCommand[] = [{ name: "touch", rest: " ran" }];

let sandbox: BashMarkerSandbox;
beforeAll(() => {
  sandbox = createBashMarkerSandbox();
});
afterAll(() => sandbox.dispose());
const runsMarker = (scripts: readonly string[]) => sandbox.runsMarker(scripts);

describe("fuzz generator scripts under bash", () => {
  it("every wrapper inside every other wrapper still runs the command", { timeout: 600_000 }, async () => {
    const scripts = WRAPPERS.flatMap((outer) => WRAPPERS.map((inner) => outer(inner("touch ran"))));
    const ran = await runsMarker(scripts);
    expect(scripts.filter((_, i) => !ran[i])).toEqual([]);
  });

  it("randomly obfuscated and wrapped scripts still run the command", { timeout: 600_000 }, async () => {
    const seed = suiteSeed("guard-hard-scripts-bash", 0x5ec0004);
    const rand = prng(seed);
    const scripts = Array.from({ length: N }, () => randomHardScript(rand, MARKER));
    const ran = await runsMarker(scripts);
    const broken = scripts.map((s, i) => `case ${i}: ${JSON.stringify(s)}`).filter((_, i) => !ran[i]);
    expect(broken, `seed ${seed}`).toEqual([]);
  });
});
