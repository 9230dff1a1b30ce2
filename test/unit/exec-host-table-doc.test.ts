import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXEC_HOST_TABLE } from "../../src/guard/index.js";

const WORDS = { deny: "denied", flag: "flagged: a person", contained: "contained: not flagged" } as const;

describe("docs/SANDBOX.md's exec-host table", () => {
  it("is the table the gate reads, row for row", () => {
    const doc = readFileSync(join(import.meta.dirname, "..", "..", "docs", "SANDBOX.md"), "utf8");
    const block = /<!-- exec-host-table:start -->\n([\s\S]*?)\n<!-- exec-host-table:end -->/.exec(doc)?.[1];
    expect(block, "docs/SANDBOX.md has the exec-host table between its markers").toBeDefined();
    const rows = (block ?? "")
      .split("\n")
      .slice(2)
      .map((line) => line.split("|").map((cell) => cell.trim()));
    const expected = Object.entries(EXEC_HOST_TABLE).map(([rule, row]) => [
      "",
      `\`${rule}\``,
      WORDS[row.local],
      WORDS[row.sandbox],
      row.why,
      "",
    ]);
    expect(rows).toEqual(expected);
  });
});
