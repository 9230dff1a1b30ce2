import { resolve } from "node:path";
import { findViolations } from "./dependency-rule.js";
import { findUnusedExports } from "./export-surface.js";

const violations = findViolations(resolve(import.meta.dirname, ".."));
for (const v of violations) process.stderr.write(`${v.file}: ${v.message}\n`);
// Each room's front door exports only what others use (scripts/export-surface.ts).
const unused = findUnusedExports(resolve(import.meta.dirname, ".."));
for (const u of unused)
  process.stderr.write(
    `${u.index}: exports "${u.name}", which no file outside its room imports; drop it (node bin/run-ts.js scripts/trim-exports.ts)\n`,
  );
if (violations.length > 0 || unused.length > 0) {
  process.stderr.write(
    `dependency rule: ${violations.length} violation(s), ${unused.length} unused export(s)\n`,
  );
  process.exit(1);
}
process.stdout.write(
  "dependency rule: ok (imports point inward, every index exports only what others import, sub-rooms point down their order, no cycles, the pure core reaches no I/O transitively, bullmq only in src/queue, cli and workers apart)\n",
);
