import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findCycles, findViolations, moduleName, SUB_ROOMS } from "../../scripts/dependency-rule.js";

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "echo-deps-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("the dependency rule", () => {
  it("holds for this repository", () => {
    expect(findViolations(resolve(import.meta.dirname, "../.."))).toEqual([]);
  });

  it("rejects an import that points outward", async () => {
    const root = await tree({
      "src/policy/index.ts": 'export { x } from "./x.js";',
      "src/policy/x.ts": 'import { q } from "../queue/index.js";\nexport const x = q;',
      "src/queue/index.ts": "export const q = 1;",
    });
    const messages = findViolations(root).map((v) => v.message);
    expect(messages.some((m) => m.includes('"policy" (layer 2) may not import "queue"'))).toBe(true);
  });

  it("rejects reaching into another folder past its index.ts", async () => {
    const root = await tree({
      "src/gate/a.ts": 'import { p } from "../policy/p.js";\nexport const a = p;',
      "src/policy/p.ts": "export const p = 1;",
    });
    expect(findViolations(root).some((v) => v.message.includes("through src/policy/index.ts"))).toBe(true);
  });

  it("rejects I/O, the wall clock and timers in the pure core", async () => {
    const root = await tree({
      "src/guard/a.ts": 'import { readFileSync } from "node:fs";\nexport const a = readFileSync;',
      "src/gate/b.ts": "export const now = () => Date.now();",
      "src/policy/c.ts": 'import { Redis } from "ioredis";\nexport const c = Redis;',
    });
    const messages = findViolations(root).map((v) => v.message);
    expect(messages).toContain('pure folder "guard" imports "node:fs"');
    expect(messages).toContain('pure folder "gate" reads the clock, timers or randomness');
    expect(messages).toContain('pure folder "policy" imports "ioredis"');
  });

  it("rejects loading config outside cli/, workers/ and runtime/", async () => {
    const root = await tree({
      "src/agent/a.ts": 'import { loadConfig } from "../config/index.js";\nexport const a = loadConfig;',
      "src/config/index.ts": "export const loadConfig = 1;",
    });
    expect(findViolations(root).some((v) => v.rule === "config-loader")).toBe(true);
  });

  it("finds import cycles between files", async () => {
    const root = await tree({
      "src/shared/a.ts": 'import { b } from "./b.js";\nexport const a = b;',
      "src/shared/b.ts": 'import { a } from "./a.js";\nexport const b = a;',
    });
    expect(findViolations(root).some((v) => v.message.startsWith("import cycle"))).toBe(true);
    expect(
      findCycles(
        new Map([
          ["x", ["y"]],
          ["y", []],
        ]),
      ),
    ).toEqual([]);
  });

  it("follows imports transitively from the pure core and names the chain to the I/O module", async () => {
    const root = await tree({
      "src/policy/index.ts": 'export { risk } from "./risk.js";',
      "src/policy/risk.ts": 'import { TOOLS } from "../catalog/index.js";\nexport const risk = TOOLS;',
      "src/catalog/index.ts": 'export { TOOLS } from "./tools.js";',
      "src/catalog/tools.ts": 'import { run } from "../shared/index.js";\nexport const TOOLS = [run];',
      "src/shared/index.ts": 'export { run } from "./run.js";',
      "src/shared/run.ts": 'import { execa } from "execa";\nexport const run = execa;',
    });
    const found = findViolations(root).filter((v) => v.rule === "pure-reaches-io");
    expect(found.map((v) => [v.file, v.target])).toContainEqual(["src/policy", "execa"]);
    expect(found.find((v) => v.file === "src/policy")?.message).toBe(
      'pure folder "policy" loads the I/O module "execa": src/policy/risk.ts -> src/catalog/index.ts -> src/catalog/tools.ts -> src/shared/index.ts -> src/shared/run.ts -> execa',
    );
    expect(found.map((v) => v.file)).toContain("src/catalog");
  });

  it("does not follow type-only imports (they are erased), but does follow `import { type X }`", async () => {
    const root = await tree({
      "src/guard/a.ts": 'import type { Node } from "web-tree-sitter";\nexport type A = Node;',
      "src/guard/b.ts": 'export type { Parser } from "web-tree-sitter";',
      "src/gate/c.ts": 'import { type Language } from "web-tree-sitter";\nexport type C = Language;',
    });
    const found = findViolations(root).filter((v) => v.rule === "pure-reaches-io");
    expect(found.map((v) => [v.file, v.target])).toEqual([["src/gate", "web-tree-sitter"]]);
  });

  it("rejects a package the pure core reaches that is not listed as pure", async () => {
    const root = await tree({ "src/catalog/a.ts": 'import YAML from "yaml";\nexport const a = YAML;' });
    expect(findViolations(root).map((v) => v.message)).toContain(
      'pure folder "catalog" loads a module not listed as pure (add it to PURE_CORE_MODULES if it does no I/O) "yaml": src/catalog/a.ts -> yaml',
    );
  });

  it("allows only the listed edges between the pure folders", async () => {
    const root = await tree({
      "src/catalog/a.ts": 'import { p } from "../policy/index.js";\nexport const a = p;',
      "src/policy/index.ts": 'import { t } from "../tools/index.js";\nexport const p = t;',
      "src/tools/index.ts": "export const t = 1;",
      "src/gate/b.ts": 'import { p } from "../policy/index.js";\nexport const b = p;',
    });
    const edges = findViolations(root)
      .filter((v) => v.rule === "pure-folder-edge")
      .map((v) => [v.file, v.target]);
    expect(edges).toEqual([
      ["src/catalog/a.ts", "policy"],
      ["src/policy/index.ts", "tools"],
    ]);
  });

  it("allows bullmq only under src/queue/, test files under src/ and workers/ included", async () => {
    const root = await tree({
      "src/queue/factory.ts": 'import { Queue } from "bullmq";\nexport const q = Queue;',
      "src/scheduler/run.ts": 'import { Queue } from "bullmq";\nexport const s = Queue;',
      "src/scheduler/run.test.ts": 'import { Queue } from "bullmq";\nexport const t = Queue;',
      "workers/w.ts": 'import type { Job } from "bullmq";\nexport type W = Job;',
    });
    const files = findViolations(root)
      .filter((v) => v.rule === "bullmq-outside-queue")
      .map((v) => v.file)
      .sort();
    expect(files).toEqual(["src/scheduler/run.test.ts", "src/scheduler/run.ts", "workers/w.ts"]);
  });

  it("keeps cli and workers apart: both go through src/runtime", async () => {
    const root = await tree({
      "src/cli/index.ts": 'import { w } from "../../workers/w.js";\nexport const c = w;',
      "workers/w.ts": 'import { r } from "../src/runtime/index.js";\nexport const w = r;',
      "workers/x.ts": 'import { c } from "../src/cli/index.js";\nexport const x = c;',
      "src/runtime/index.ts": "export const r = 1;",
    });
    const found = findViolations(root);
    expect(found.filter((v) => v.rule === "entry-cross-import").map((v) => v.file)).toEqual([
      "src/cli/index.ts",
      "workers/x.ts",
    ]);
    expect(found.filter((v) => v.file === "workers/w.ts")).toEqual([]);
  });

  it("names modules by package or node: built-in", () => {
    expect(moduleName("fs/promises")).toBe("node:fs/promises");
    expect(moduleName("node:child_process")).toBe("node:child_process");
    expect(moduleName("@modelcontextprotocol/sdk/client/index.js")).toBe("@modelcontextprotocol/sdk");
    expect(moduleName("typebox/value")).toBe("typebox");
  });
  describe("sub-rooms", () => {
    const room = "guard";
    const [low, high] = SUB_ROOMS[room] ?? [];

    it("lists guard's sub-rooms lowest first", () => {
      expect(low).toBeDefined();
      expect(high).toBeDefined();
    });

    it("rejects a sub-room that imports one above it, and the room's top level", async () => {
      const root = await tree({
        [`src/${room}/${low}/index.ts`]: 'export { a } from "./a.js";',
        [`src/${room}/${low}/a.ts`]: `import { b } from "../${high}/index.js";\nexport const a = b;`,
        [`src/${room}/${low}/c.ts`]: 'import { top } from "../top.js";\nexport const c = top;',
        [`src/${room}/${high}/index.ts`]: "export const b = 1;",
        [`src/${room}/top.ts`]: "export const top = 1;",
      });
      const upward = findViolations(root).filter((v) => v.rule === "sub-room-upward");
      expect(upward.map((v) => [v.file, v.target])).toEqual([
        [`src/${room}/${low}/a.ts`, `${room}/${high}`],
        [`src/${room}/${low}/c.ts`, `${room}/`],
      ]);
      expect(upward[0]?.message).toContain(`"${room}/${low}" may not import "${room}/${high}"`);
    });

    it("allows imports down the order through the index, and only through it", async () => {
      const root = await tree({
        [`src/${room}/${low}/index.ts`]: 'export { a } from "./a.js";',
        [`src/${room}/${low}/a.ts`]: "export const a = 1;",
        [`src/${room}/${high}/index.ts`]: 'export { b } from "./b.js";',
        [`src/${room}/${high}/b.ts`]: `import { a } from "../${low}/index.js";\nexport const b = a;`,
        [`src/${room}/${high}/d.ts`]: `import { a } from "../${low}/a.js";\nexport const d = a;`,
        [`src/${room}/top.ts`]: `import { b } from "./${high}/index.js";\nexport const top = b;`,
        [`src/${room}/inner.ts`]: `import { b } from "./${high}/b.js";\nexport const inner = b;`,
      });
      const found = findViolations(root);
      expect(found.filter((v) => v.rule === "sub-room-upward")).toEqual([]);
      expect(
        found
          .filter((v) => v.rule === "index-only")
          .map((v) => v.file)
          .sort(),
      ).toEqual([`src/${room}/inner.ts`, `src/${room}/${high}/d.ts`]);
    });

    it("lets a sub-room's test drive the room's top level, as tests may between layers", async () => {
      const root = await tree({
        [`src/${room}/${low}/a.test.ts`]: 'import { top } from "../top.js";\nexport const t = top;',
        [`src/${room}/top.ts`]: "export const top = 1;",
      });
      expect(findViolations(root).filter((v) => v.rule === "sub-room-upward")).toEqual([]);
    });

    it("rejects a folder of a listed room that is missing from the order, with where to add it", async () => {
      const root = await tree({ [`src/${room}/unplaced/x.ts`]: "export const x = 1;" });
      const found = findViolations(root).filter((v) => v.rule === "sub-room-map");
      expect(found.map((v) => v.file)).toEqual([`src/${room}/unplaced/x.ts`]);
      expect(found[0]?.message).toContain(`is not in the order of "${room}" in SUB_ROOMS`);
    });

    it("orders the sub-rooms of a folder inside a room (cli/commands) the same way", async () => {
      const [first, second] = SUB_ROOMS["cli/commands"] ?? [];
      const root = await tree({
        [`src/cli/commands/${first}/index.ts`]: 'export { s } from "./s.js";',
        [`src/cli/commands/${first}/s.ts`]: "export const s = 1;",
        [`src/cli/commands/${first}/up.ts`]: `import { d } from "../${second}/index.js";\nexport const up = d;`,
        [`src/cli/commands/${second}/index.ts`]: 'export { d } from "./d.js";',
        [`src/cli/commands/${second}/d.ts`]: `import { s } from "../${first}/index.js";\nimport { io } from "../../io.js";\nexport const d = s + io;`,
        "src/cli/io.ts": "export const io = 1;",
        "src/cli/run-cli.ts": `import { d } from "./commands/${second}/d.js";\nimport { s } from "./commands/${first}/index.js";\nexport const r = d + s;`,
      });
      const found = findViolations(root);
      expect(found.filter((v) => v.rule === "sub-room-upward").map((v) => [v.file, v.target])).toEqual([
        [`src/cli/commands/${first}/up.ts`, `cli/commands/${second}`],
      ]);
      expect(found.filter((v) => v.rule === "index-only").map((v) => v.file)).toEqual(["src/cli/run-cli.ts"]);
    });

    it("checks a room without listed sub-rooms as one folder", async () => {
      const root = await tree({
        "src/shared/inner/a.ts": 'import { b } from "../b.js";\nexport const a = b;',
        "src/shared/b.ts": "export const b = 1;",
      });
      expect(findViolations(root)).toEqual([]);
    });
  });
});
