import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { findUnusedExports, trimIndex } from "./export-surface.js";

/**
 * `node bin/run-ts.js scripts/trim-exports.ts`: removes from every index.ts the names no file outside
 * its room imports (what `npm run check:deps` refuses). Run it until it removes nothing: a sub-room's
 * name that only its room's index re-exported goes on the second pass.
 */
const root = resolve(import.meta.dirname, "..");
const byIndex = new Map<string, Set<string>>();
for (const u of findUnusedExports(root))
  byIndex.set(u.index, (byIndex.get(u.index) ?? new Set()).add(u.name));
let removed = 0;
for (const [index, names] of byIndex) {
  const path = join(root, index);
  writeFileSync(path, trimIndex(readFileSync(path, "utf8"), names));
  removed += names.size;
}
process.stdout.write(`export surface: removed ${removed} name(s) from ${byIndex.size} index file(s)\n`);
