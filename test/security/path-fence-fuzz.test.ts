import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPathFence, type PathAccess } from "../../src/guard/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../../src/tools/builtin-runtime.js";
import { createWriteFileTool } from "../../src/tools/files/write-file.js";
import { invokeTool } from "../../src/tools/index.js";
import { callContext } from "../../src/tools/registry/builtin-tools.fixture.js";
import { iterations, pick, prng, suiteSeed } from "./seeded.js";

/**
 * Path fence fuzzing on a real file system: a workspace with symlinks that lead outside (directly,
 * relatively, through chains, from a subfolder), symlink loops, unicode look-alikes of `.` and `/`,
 * NUL bytes and `~`. For every random path the fence allows, the kernel's own answer (realpath of
 * the deepest existing ancestor, plus the rest) must lie inside the workspace — and so must the
 * path the fence hands to the tool. PATH_FUZZ_ITERATIONS (default 6,000).
 */

const N = iterations("PATH_FUZZ_ITERATIONS", 6000);
const root = realpathSync(mkdtempSync(join(tmpdir(), "echo-fence-fuzz-")));
const ws = join(root, "ws");
const outside = join(root, "outside");
const home = join(root, "home");
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const dir of [
  ws,
  outside,
  home,
  join(ws, "sub"),
  join(ws, "sub", "deep"),
  join(ws, "café"),
  join(outside, "nested"),
])
  mkdirSync(dir, { recursive: true });
writeFileSync(join(ws, "file.txt"), "inside");
writeFileSync(join(outside, "secret"), "outside");
const LINKS: Record<string, string> = {
  out: outside, // absolute, to outside
  rel: "../outside", // relative, to outside
  "sub/up": "../../outside", // from a subfolder
  chain: "rel", // a link to a link to outside
  in: "sub", // stays inside
  "sub/back": "..", // inside, to the workspace root
  loop1: "loop2",
  loop2: "loop1",
  dangling: "../outside/nothing-here",
  rootlink: "/",
};
for (const [at, target] of Object.entries(LINKS)) symlinkSync(target, join(ws, at));
symlinkSync(ws, join(outside, "alias")); // outside, pointing into the workspace

const SEGMENTS = [
  ".",
  "..",
  "sub",
  "deep",
  "in",
  "out",
  "rel",
  "up",
  "back",
  "chain",
  "loop1",
  "dangling",
  "rootlink",
  "file.txt",
  "missing",
  "new",
  "secret",
  "outside",
  "ws",
  "alias",
  "café", // NFC
  "cafe\u0301", // NFD: another name to the kernel
  "\u2025", // two-dot leader, not ..
  "\uff0e\uff0e", // full-width dots, not ..
  "..\u2215outside", // division slash, not /
  "%2e%2e",
  "..%2f",
  ". .",
  ".. ",
  "",
];

function randomPath(rand: () => number): string {
  const parts: string[] = [];
  const length = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < length; i++) parts.push(pick(rand, SEGMENTS));
  let path = parts.join(pick(rand, ["/", "/", "/", "//", "/./"]));
  const start = rand();
  if (start < 0.15) path = `${ws}/${path}`;
  else if (start < 0.22) path = `${outside}/${path}`;
  else if (start < 0.27) path = `~/${path}`;
  else if (start < 0.3) path = `/${path}`;
  if (rand() < 0.03) path = `${path}\u0000.txt`;
  if (rand() < 0.1) path = `${path}/`;
  return path;
}

/** The kernel's answer: realpath of the deepest existing ancestor, then the rest as written (normalised). */
function kernelPath(path: string): string | undefined {
  let full = path.startsWith("~/") ? join(home, path.slice(2)) : path;
  full = resolve(ws, full);
  let existing = full;
  const rest: string[] = [];
  for (;;) {
    try {
      lstatSync(existing);
      break;
    } catch {
      rest.unshift(existing.slice(dirname(existing).length + 1));
      existing = dirname(existing);
    }
  }
  try {
    return resolve(realpathSync(existing), ...rest);
  } catch {
    return undefined; // a loop or a dangling link: the kernel cannot reach it either
  }
}

const inside = (p: string) => p === ws || p.startsWith(`${ws}/`);

describe(`path fence fuzz on a real file system, ${N} paths`, () => {
  const fence = createPathFence({ workspaceRoot: ws, homeDir: home, fs: nodeFsView() });

  it("allows only paths whose real target, and the path it hands to the tool, are inside the workspace", () => {
    const seed = suiteSeed("path-fence", 0xfe9ce);
    const rand = prng(seed);
    let allowed = 0;
    for (let i = 0; i < N; i++) {
      const path = randomPath(rand);
      const access: PathAccess = rand() < 0.5 ? "read" : "write";
      const verdict = fence.check(path, access);
      const where = `seed ${seed} case ${i}: ${JSON.stringify(path)} (${access}) → ${JSON.stringify(verdict)}`;
      expect(["allow", "deny"], where).toContain(verdict.verdict);
      if (verdict.verdict !== "allow") continue;
      allowed++;
      expect(path.includes("\u0000"), where).toBe(false);
      const kernel = kernelPath(path);
      if (kernel !== undefined) expect(inside(kernel), `${where}; the kernel reaches ${kernel}`).toBe(true);
      // The tool works on resolvedPath: the kernel must also find that inside (no symlink left in it to follow out).
      const handed = kernelPath(verdict.resolvedPath);
      expect(handed !== undefined && inside(handed), `${where}; resolvedPath leads to ${handed}`).toBe(true);
    }
    expect(allowed, "the generator reaches allowed paths too").toBeGreaterThan(N * 0.1);
  });

  it("denies a .. after a missing folder (new/../out/x), which judged lexically would pass through a link to outside", () => {
    // Regression: the fence used to normalise `missing/../out/secret` to <ws>/out/secret, "inside",
    // and write_file then wrote through the `out` symlink into the folder outside.
    for (const path of [
      "missing/../out/secret",
      "a/b/../../rel/x",
      "new/../sub/up/secret",
      `${ws}/n/../chain/y`,
    ]) {
      const verdict = fence.check(path, "write");
      expect(verdict, path).toMatchObject({ verdict: "deny", rule: "path.invalid" });
      expect(verdict.reason).toContain("does not exist");
    }
  });

  it("write_file does not write outside through a missing folder and ..", async () => {
    const tool = createWriteFileTool({
      pathFence: (workspace) =>
        createPathFence({ workspaceRoot: workspace, homeDir: home, fs: nodeFsView() }),
      limits: DEFAULT_BUILTIN_LIMITS,
    });
    const args = { path: "missing/../out/planted.txt", content: "pwned" };
    const result = await invokeTool(tool, args, callContext(tool, ws));
    expect(result).toMatchObject({ success: false });
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
  });
});
