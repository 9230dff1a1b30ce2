import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Real bash for the fuzz generator's own tests: runs scripts whose wrapped command is the harmless
 * `touch ran`, and says which of them really ran it. A wrapper that quotes wrongly turns the command
 * into an argument, and the guard fuzz built on it into a test that cannot fail.
 */
export interface BashMarkerSandbox {
  /** Runs each script by its own bash in a fresh directory; which created `ran` (waiting for `&`). */
  runsMarker(scripts: readonly string[]): Promise<boolean[]>;
  /** Removes the sandbox. */
  dispose(): void;
}

export function createBashMarkerSandbox(): BashMarkerSandbox {
  const dir = mkdtempSync(join(tmpdir(), "fuzz-gen-"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
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

  async function runsMarker(scripts: readonly string[]): Promise<boolean[]> {
    const batch = mkdtempSync(join(dir, "batch-"));
    // One driver runs them all: spawning bash from Node per script is slow on a shared machine.
    const lines: string[] = [];
    scripts.forEach((script, i) => {
      writeFileSync(join(batch, `${i}.sh`), script);
      mkdirSync(join(batch, `d${i}`));
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

  return { runsMarker, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
