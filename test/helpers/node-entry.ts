import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { buildState, SOURCE_DIRS, TEST_ENTRY_DIRS } from "../../bin/freshness.js";
import { REPO_ROOT } from "./cli-process.js";

/**
 * The node arguments that start a TypeScript entry point (`test/helpers/agent-worker-main.ts`): its
 * compiled JavaScript in dist/ when the build is newer than every source and test helper (a worker
 * start in a few hundred ms), else the source through bin/run-ts.js (tsx compiles it, seconds).
 */
export function nodeEntryArgs(entry: string): string[] {
  const compiled = resolve(REPO_ROOT, "dist", entry.replace(/\.ts$/, ".js"));
  if (existsSync(compiled) && buildState(REPO_ROOT, [...SOURCE_DIRS, ...TEST_ENTRY_DIRS]).state === "fresh") {
    return [compiled];
  }
  return [resolve(REPO_ROOT, "bin/run-ts.js"), entry];
}
