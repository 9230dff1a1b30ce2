import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzCommand, randomHardScript, WRAPPERS } from "../../src/guard/fuzz-generators.fixture.js";
import { iterations, prng, suiteSeed } from "./seeded.js";

/**
 * The fuzz generator's scripts must really be what they claim: the wrapped command runs. Checked by
 * real bash on the same shapes with a harmless command (`touch ran`) in place of the hard one — a
 * wrapper that quotes wrongly turns the command into an argument and the guard test into a no-op.
 */
/** Bash runs are slow, so a tenth of the guard fuzz cases (default 400). */
const N = Math.ceil(iterations("GUARD_FUZZ_ITERATIONS", 4000) / 10);

const MARKER: readonly FuzzCommand[] = [{ name: "touch", rest: " ran" }];

let dir: string;
let bin: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "fuzz-gen-"));
  bin = join(dir, "bin");
  rmSync(bin, { recursive: true, force: true });
  spawnSync("mkdir", [bin]);
  // sudo/doas may be absent or ask for a password; `sh` means bash here, since the wrappers nest
  // bash-only constructs (process substitution) inside `sh -c`, as they do on systems where sh is bash.
  for (const [name, body] of [
    ["sudo", 'exec "$@"'],
    ["doas", 'exec "$@"'],
    ["sh", 'exec bash "$@"'],
  ] as const) {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs each script by its own bash in a fresh directory, all from one driver (spawning bash from Node
 * per script is slow on a shared machine), and says which created the marker (waiting for `&`).
 */
async function runsMarker(scripts: readonly string[]): Promise<boolean[]> {
  const batch = mkdtempSync(join(dir, "batch-"));
  const lines: string[] = [];
  scripts.forEach((script, i) => {
    writeFileSync(join(batch, `${i}.sh`), script);
    spawnSync("mkdir", [join(batch, `d${i}`)]);
    lines.push(`(cd d${i} && timeout 10 bash ../${i}.sh) </dev/null >/dev/null 2>&1`);
  });
  try {
    writeFileSync(join(batch, "driver.sh"), lines.join("\n"));
    const result = spawnSync("bash", ["driver.sh"], {
      cwd: batch,
      env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: batch },
      stdio: "ignore",
    });
    if (result.error) throw result.error;
    const ran = () => scripts.map((_, i) => existsSync(join(batch, `d${i}`, "ran")));
    const deadline = Date.now() + 5000;
    for (;;) {
      const seen = ran();
      if (seen.every(Boolean) || Date.now() >= deadline) return seen;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    rmSync(batch, { recursive: true, force: true });
  }
}

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
