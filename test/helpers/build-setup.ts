import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

/**
 * Rebuilds dist/ when a source is newer than it (scripts/build.mjs --if-stale), before any test runs:
 * tests that start `bin/echo-runner.js` run the compiled CLI, which refuses stale output. `npm test`
 * has built already (pretest); this covers `npx vitest run <file>` after an edit.
 */
export function setup(): void {
  const root = resolve(import.meta.dirname, "../..");
  const result = spawnSync(process.execPath, [resolve(root, "scripts/build.mjs"), "--if-stale"], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0)
    throw new Error(`scripts/build.mjs --if-stale failed (${result.status ?? result.signal})`);
}
