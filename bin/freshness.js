// Whether dist/ (the compiled JavaScript the bin runs) is at least as new as the TypeScript sources.
// Plain JavaScript: the bin asks it before anything is compiled or loaded.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The folders compiled into dist/ (every non-test .ts file under them, see tsconfig.build.json). */
export const SOURCE_DIRS = ["src", "workers"];
/** Test helpers the build also compiles (the `*-main.ts` worker processes tests start). */
export const TEST_ENTRY_DIRS = ["test/helpers"];
/** Written last by scripts/build.mjs: `{"builtFrom": <ms>}`, the time the build started. */
export const STAMP = join("dist", ".build-stamp.json");

/** A file the build compiles, or copies as it is (the Redis scripts). */
export function isSource(name) {
  return (
    (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) || name.endsWith(".lua")
  );
}

/**
 * The newest source file under `dirs` of `root` ({ path, mtimeMs }), or null when there are none (an image).
 * Every start of the bin walks the ~460 sources, so the walk is kept cheap: paths are joined by hand
 * (`root` is absolute and normalised, entry names hold no separator) and the times are read as
 * bigint nanoseconds (Node 20 builds four Date objects for every plain Stats).
 */
export function newestSource(root, dirs = SOURCE_DIRS) {
  let newest = null;
  let newestNs = -1n;
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = dir + sep + entry.name;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && isSource(entry.name)) {
        const { mtimeNs } = statSync(path, { bigint: true });
        if (mtimeNs > newestNs) {
          newestNs = mtimeNs;
          newest = path;
        }
      }
    }
  };
  for (const dir of dirs) walk(join(root, dir));
  return newest === null ? null : { path: newest, mtimeMs: Number(newestNs) / 1e6 };
}

/**
 * `{ state: "fresh" }`, `{ state: "missing" }` (never built), or `{ state: "stale", source }` naming
 * a source under `dirs` changed after the build started.
 */
export function buildState(root, dirs = SOURCE_DIRS) {
  let builtFrom;
  try {
    builtFrom = Number(JSON.parse(readFileSync(join(root, STAMP), "utf8")).builtFrom);
  } catch {
    return { state: "missing" };
  }
  if (!Number.isFinite(builtFrom)) return { state: "missing" };
  const newest = newestSource(root, dirs);
  if (newest && newest.mtimeMs > builtFrom) return { state: "stale", source: relative(root, newest.path) };
  return { state: "fresh" };
}
