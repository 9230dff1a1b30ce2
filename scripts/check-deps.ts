import { resolve } from "node:path";
import { findViolations } from "./dependency-rule.js";

const violations = findViolations(resolve(import.meta.dirname, ".."));
for (const v of violations) process.stderr.write(`${v.file}: ${v.message}\n`);
if (violations.length > 0) {
  process.stderr.write(`dependency rule: ${violations.length} violation(s)\n`);
  process.exit(1);
}
process.stdout.write(
  "dependency rule: ok (imports point inward, sub-rooms point down their order, no cycles, the pure core reaches no I/O transitively, bullmq only in src/queue, cli and workers apart)\n",
);
