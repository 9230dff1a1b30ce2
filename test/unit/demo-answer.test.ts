import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * The demo's scripted answer is written before anyone decides: it may not claim what a person did
 * (an approval that expires is a denial, and the delete then never ran).
 */
describe("the demo's final answer", () => {
  it("does not claim that a person approved the recursive delete", async () => {
    const file = parse(await readFile(new URL("../../config/demo-script.yaml", import.meta.url), "utf8")) as {
      tasks: Record<string, { content?: string; tool_calls?: unknown[] }[]>;
    };
    const turns = file.tasks["Write the daily report of the demo workspace."] ?? [];
    const final = turns.at(-1)?.content ?? "";
    expect(final).not.toMatch(/after a person approved|were cleared/);
    expect(final).toMatch(/denied or expired/);
  });
});
