import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { luaScript } from "./lua-file.js";

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "lua-file-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return pathToFileURL(join(dir, "module.js")).href;
}

describe("luaScript", () => {
  it("leaves the header out, expands includes (nested) and takes the key count from the name", () => {
    const at = folder({
      "outer-2.lua": "-- KEYS: 1 a, 2 b\n-- Returns 1.\n--@include inner.lua\nreturn f(KEYS[1])\n",
      "inner.lua": "-- a helper\n--@include deepest.lua\nlocal function f(k) return g(k) end\n",
      "deepest.lua": "local function g(k) return 1 end\n",
      "any.lua": "-- KEYS: as many as it likes\nreturn #KEYS\n",
    });
    expect(luaScript(at, "outer-2.lua")).toEqual({
      lua: "local function g(k) return 1 end\nlocal function f(k) return g(k) end\nreturn f(KEYS[1])\n",
      numberOfKeys: 2,
    });
    expect(luaScript(at, "any.lua")).toEqual({ lua: "return #KEYS\n", numberOfKeys: undefined });
  });

  it("refuses a missing file, naming it and the build, and an include cycle", () => {
    const at = folder({ "a-1.lua": "--@include b.lua\n", "b.lua": "--@include a-1.lua\n" });
    for (const [file, says] of [
      ["gone-1.lua", /gone-1\.lua cannot be read.*scripts\/build\.mjs/],
      ["a-1.lua", /include cycle/],
    ] as const) {
      let err: unknown;
      try {
        luaScript(at, file);
      } catch (e) {
        err = e;
      }
      expect(isRunnerError(err) && err.code).toBe("INTERNAL");
      expect(String((err as Error).message)).toMatch(says);
    }
  });

  it("every script under src/ says in its header what it takes and returns", () => {
    const root = join(import.meta.dirname, "..");
    const files = readdirSync(root, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".lua"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const lines = readFileSync(join(root, file), "utf8").split("\n");
      const body = lines.findIndex((l) => !l.startsWith("--") || l.startsWith("--@include"));
      const header = lines.slice(0, body).join("\n");
      if (/-\d+\.lua$/.test(file) || !/included/i.test(header)) {
        expect(header, file).toMatch(/KEYS/);
        expect(header, file).toMatch(/returns/i);
      }
    }
  });
});
