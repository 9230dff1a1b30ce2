import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkDependencyRule, findCycles } from "../../scripts/dependency-rule.js";

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
    expect(checkDependencyRule(resolve(import.meta.dirname, "../.."))).toEqual([]);
  });

  it("rejects an import that points outward", async () => {
    const root = await tree({
      "src/policy/index.ts": 'export { x } from "./x.js";',
      "src/policy/x.ts": 'import { q } from "../queue/index.js";\nexport const x = q;',
      "src/queue/index.ts": "export const q = 1;",
    });
    const messages = checkDependencyRule(root).map((v) => v.message);
    expect(messages.some((m) => m.includes('"policy" (layer 2) may not import "queue"'))).toBe(true);
  });

  it("rejects reaching into another folder past its index.ts", async () => {
    const root = await tree({
      "src/gate/a.ts": 'import { p } from "../policy/p.js";\nexport const a = p;',
      "src/policy/p.ts": "export const p = 1;",
    });
    expect(checkDependencyRule(root).some((v) => v.message.includes("through src/policy/index.ts"))).toBe(
      true,
    );
  });

  it("rejects I/O, the wall clock and timers in the pure core", async () => {
    const root = await tree({
      "src/guard/a.ts": 'import { readFileSync } from "node:fs";\nexport const a = readFileSync;',
      "src/gate/b.ts": "export const now = () => Date.now();",
      "src/policy/c.ts": 'import { Redis } from "ioredis";\nexport const c = Redis;',
    });
    const messages = checkDependencyRule(root).map((v) => v.message);
    expect(messages).toContain('pure folder "guard" imports "node:fs"');
    expect(messages).toContain('pure folder "gate" reads the clock, timers or randomness');
    expect(messages).toContain('pure folder "policy" imports "ioredis"');
  });

  it("rejects importing bullmq outside src/queue/, test files included", async () => {
    const root = await tree({
      "src/queue/q.ts": 'import { Queue } from "bullmq";\nexport const q = Queue;',
      "src/metrics/m.ts": 'import type { Queue } from "bullmq";\nexport type M = Queue;',
      "src/agent/a.test.ts": 'import { Job } from "bullmq";\nexport const a = Job;',
      "workers/w.ts": 'import { Worker } from "bullmq";\nexport const w = Worker;',
    });
    const files = checkDependencyRule(root)
      .filter((v) => v.message.startsWith('only src/queue/ imports "bullmq"'))
      .map((v) => v.file)
      .sort();
    expect(files).toEqual(["src/agent/a.test.ts", "src/metrics/m.ts", "workers/w.ts"]);
  });

  it("rejects loading config outside cli/ and workers/", async () => {
    const root = await tree({
      "src/agent/a.ts": 'import { loadConfig } from "../config/index.js";\nexport const a = loadConfig;',
      "src/config/index.ts": "export const loadConfig = 1;",
    });
    expect(
      checkDependencyRule(root).some((v) => v.message.includes("only cli/ and workers/ load config")),
    ).toBe(true);
  });

  it("finds import cycles between files", async () => {
    const root = await tree({
      "src/shared/a.ts": 'import { b } from "./b.js";\nexport const a = b;',
      "src/shared/b.ts": 'import { a } from "./a.js";\nexport const b = a;',
    });
    expect(checkDependencyRule(root).some((v) => v.message.startsWith("import cycle"))).toBe(true);
    expect(
      findCycles(
        new Map([
          ["x", ["y"]],
          ["y", []],
        ]),
      ),
    ).toEqual([]);
  });
});
