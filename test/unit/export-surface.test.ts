import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findUnusedExports, trimIndex } from "../../scripts/export-surface.js";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "echo-exports-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("the used surface of each room", () => {
  it("holds for this repository: every name an index.ts exports is imported from outside its room", () => {
    expect(findUnusedExports(resolve(import.meta.dirname, "../.."))).toEqual([]);
  });

  it("names an export only its own room uses, and counts type, re-export, dynamic and test imports", async () => {
    const root = await tree({
      "src/journal/index.ts": [
        'export { used, inner, viaTest, viaDynamic, viaReexport } from "./a.js";',
        'export type { Shape } from "./a.js";',
        "export const own = 1;",
      ].join("\n"),
      "src/journal/a.ts":
        "export const used = 1, inner = 2, viaTest = 3, viaDynamic = 4, viaReexport = 5;\nexport type Shape = {};",
      "src/journal/b.ts": 'import { inner } from "./index.js";\nexport const b = inner;',
      "src/queue/q.ts":
        'import { used, type Shape } from "../journal/index.js";\nexport const q: Shape = used;',
      "src/queue/index.ts": 'export { viaReexport } from "../journal/index.js";\nexport { q } from "./q.js";',
      "src/agent/run.ts":
        'export async function f() { const { viaDynamic } = await import("../journal/index.js"); return viaDynamic; }',
      "src/agent/index.ts": 'export { f } from "./run.js";',
      "test/x.test.ts":
        'import { viaTest } from "../src/journal/index.js";\nimport { q, viaReexport } from "../src/queue/index.js";\nimport { f } from "../src/agent/index.js";\nexport default [viaTest, q, viaReexport, f];',
    });
    expect(findUnusedExports(root)).toEqual([
      { index: "src/journal/index.ts", name: "inner" },
      { index: "src/journal/index.ts", name: "own" },
    ]);
  });

  it("counts a sub-room's sibling as outside, and a namespace import as using everything", async () => {
    const root = await tree({
      "src/approvals/store/index.ts": 'export { a, b } from "./s.js";',
      "src/approvals/store/s.ts": "export const a = 1, b = 2;",
      "src/approvals/notify/n.ts": 'import { a } from "../store/index.js";\nexport const n = a;',
      "src/approvals/index.ts": 'export { n } from "./notify/n.js";',
      "src/http/index.ts": 'export { h } from "./h.js";',
      "src/http/h.ts": 'import * as all from "../approvals/index.js";\nexport const h = all;',
      "src/runtime/r.ts": 'import { h } from "../http/index.js";\nexport const r = h;',
    });
    expect(findUnusedExports(root)).toEqual([{ index: "src/approvals/store/index.ts", name: "b" }]);
  });

  it("trims names from export lists and drops a list left empty", () => {
    const text = [
      'export { a, type B, c } from "./x.js";',
      'export { d } from "./y.js";',
      "export const e = 1;",
      "",
    ].join("\n");
    expect(trimIndex(text, new Set(["a", "d", "e"]))).toBe(
      ['export { type B, c } from "./x.js";', "export const e = 1;", ""].join("\n"),
    );
  });
});
