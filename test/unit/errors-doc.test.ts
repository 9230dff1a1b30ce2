import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/shared/index.js";
import { REPO_ROOT } from "../helpers/cli-process.js";

/** docs/ERRORS.md has one heading (its anchor) and a sentence for every error code, and no others. */
describe("docs/ERRORS.md", () => {
  const text = readFileSync(resolve(REPO_ROOT, "docs/ERRORS.md"), "utf8");
  const sections = [...text.matchAll(/^### ([A-Z_]+)\n+([^\n]+)/gm)].map((m) => ({
    code: m[1],
    first: m[2],
  }));

  it("names every code of the error catalogue, once, in its order", () => {
    expect(sections.map((s) => s.code)).toEqual([...ERROR_CODES]);
  });

  it("says something about each", () => {
    for (const section of sections) expect(section.first?.trim().length, section.code).toBeGreaterThan(20);
  });
});
