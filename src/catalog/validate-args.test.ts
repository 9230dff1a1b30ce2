import Type from "typebox";
import { describe, expect, it } from "vitest";
import { defineTool } from "./define-tool.js";
import { toolSuccess } from "./tool-result.js";
import { validateToolArgs } from "./validate-args.js";

const tool = defineTool({
  name: "write_file",
  description: "Write a file",
  parameters: Type.Object(
    {
      path: Type.String({ minLength: 1 }),
      content: Type.String(),
      mode: Type.Optional(Type.Union([Type.Literal("overwrite"), Type.Literal("append")])),
      encoding: Type.Optional(Type.Enum(["utf8", "base64"])),
      options: Type.Optional(Type.Object({ mkdir: Type.Boolean(), retries: Type.Array(Type.Integer()) })),
    },
    { additionalProperties: false },
  ),
  execute: async () => toolSuccess("ok"),
});

describe("validateToolArgs", () => {
  it("accepts valid arguments and returns them typed", () => {
    const result = validateToolArgs(tool, { path: "a.txt", content: "x", mode: "append" });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.args.mode).toBe("append");
  });

  it.each([
    ["a missing required field", { content: "x" }, "path", "is required"],
    ["a wrong type", { path: 3, content: "x" }, "path", "must be string"],
    ["a too-short string", { path: "", content: "x" }, "path", "fewer than 1 characters"],
    [
      "an unknown property",
      { path: "a", content: "x", force: true },
      "force",
      "is not allowed (unknown property)",
    ],
    [
      "a literal outside the union",
      { path: "a", content: "x", mode: "truncate" },
      "mode",
      '"overwrite", "append"',
    ],
    [
      "a value outside the enum",
      { path: "a", content: "x", encoding: "hex" },
      "encoding",
      '"utf8", "base64"',
    ],
    [
      "a nested array item",
      { path: "a", content: "x", options: { mkdir: true, retries: [1, "2"] } },
      "options.retries.1",
      "integer",
    ],
  ])("turns %s into a validation result naming the field", (_what, args, field, problem) => {
    const result = validateToolArgs(tool, args);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.result).toMatchObject({ success: false, errorKind: "validation" });
    expect(result.result.error).toContain(`Invalid arguments for tool "write_file"`);
    expect(result.result.error).toContain(field);
    const named = result.fields.find((f) => f.field === field);
    expect(named?.problem).toContain(problem);
  });

  it.each([null, "text", 42, [1, 2]])(
    "reports %j as arguments that are not an object, without throwing",
    (args) => {
      const result = validateToolArgs(tool, args);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.result.error).toContain("arguments must be object");
    },
  );

  it("lists every bad field once", () => {
    const result = validateToolArgs(tool, { path: 1, extra: 2 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.fields.map((f) => f.field).sort()).toEqual(["content", "extra", "path"]);
  });
});
