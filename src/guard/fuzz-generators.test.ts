import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backquoted } from "./fuzz-generators.fixture.js";

/**
 * Nested backquotes in the fuzz generator, checked by real bash with a harmless command. The whole
 * generator is checked the same way in test/security/guard-fuzz-scripts-bash.test.ts.
 */

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
    const result = spawnSync("bash", ["-c", lines.join("\n")], {
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
  it("backquoted hands the inner shell exactly its text, however deep", async () => {
    const scripts: string[] = [];
    let script = "touch ran";
    for (let depth = 1; depth <= 4; depth++) {
      script = `echo ${backquoted(script)}`;
      scripts.push(script);
    }
    // Backslashes, dollars and quotes inside survive the nesting too.
    scripts.push(`echo ${backquoted(`echo ${backquoted("t\\ouch $'r'an")}`)}`);
    expect(await runsMarker(scripts)).toEqual(scripts.map(() => true));
  });
});
