import { resolve } from "node:path";
import { checkDependencyRule } from "./dependency-rule.js";

const root = resolve(import.meta.dirname, "..");
const violations = checkDependencyRule(root);
if (violations.length > 0) {
  for (const v of violations) process.stderr.write(`${v.file}: ${v.message}\n`);
  process.stderr.write(`dependency rule: ${violations.length} violation(s)\n`);
  process.exit(1);
}
process.stdout.write("dependency rule: ok (imports point inward, no cycles, pure core)\n");
