import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RunnerError } from "../shared/index.js";

/** A Redis script read from its `.lua` file: the source to send and how many keys it takes. */
export interface LuaScript {
  /** The Lua source, header left out and includes expanded. */
  readonly lua: string;
  /** From the file name, `<name>-<numKeys>.lua` (BullMQ's convention); undefined when it takes a variable number. */
  readonly numberOfKeys: number | undefined;
}

const INCLUDE = /^--@include\s+(\S+)\s*$/;
const NAMED = /-(\d+)\.lua$/;
const cache = new Map<string, string>();

/**
 * The script `file` beside the module `moduleUrl` (pass `import.meta.url`), read once per process.
 * The comment lines a file opens with (its header: KEYS, ARGV, the reply) are left out, since
 * `EVAL` sends the source each time; a line `--@include other.lua` is replaced by that file, found
 * beside the one that includes it, so scripts share helpers without string concatenation.
 */
export function luaScript(moduleUrl: string, file: string): LuaScript {
  const path = join(dirname(fileURLToPath(moduleUrl)), file);
  const count = NAMED.exec(basename(path))?.[1];
  return { lua: expand(path, []), numberOfKeys: count === undefined ? undefined : Number(count) };
}

function expand(path: string, including: readonly string[]): string {
  const cached = cache.get(path);
  if (cached !== undefined) return cached;
  if (including.includes(path)) {
    throw new RunnerError("INTERNAL", `Lua include cycle: ${[...including, path].join(" → ")}`);
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new RunnerError(
      "INTERNAL",
      `Redis script ${path} cannot be read; a build copies every .lua file beside its module into dist/ (node scripts/build.mjs)`,
      { cause },
    );
  }
  const lines = text.split("\n");
  let start = 0;
  while (
    start < lines.length &&
    (lines[start]?.startsWith("--") ?? false) &&
    !INCLUDE.test(lines[start] ?? "")
  )
    start++;
  const out = lines.slice(start).map((line) => {
    const include = INCLUDE.exec(line)?.[1];
    return include === undefined
      ? line
      : expand(join(dirname(path), include), [...including, path]).trimEnd();
  });
  const lua = out.join("\n");
  cache.set(path, lua);
  return lua;
}
