import Type from "typebox";
import { describe, expect, it } from "vitest";
import { defineTool, reservedToolResult, toolSuccess } from "../../catalog/index.js";
import { isRunnerError } from "../../shared/index.js";
import { createToolRegistry } from "./registry.js";

describe("reserved tools", () => {
  it.each(["agents_list", "agents_route"])(
    "%s answers with a clear reserved, not callable result",
    (name) => {
      expect(reservedToolResult(name)).toEqual({
        success: false,
        output: "",
        errorKind: "denied",
        error: `Tool "${name}" is reserved: it is declared in the catalog but not implemented, and never callable`,
        data: { reserved: true },
      });
    },
  );

  it.each(["read_file", "web_fetch", "mcp__x__y", "nope"])("%s is not reserved", (name) => {
    expect(reservedToolResult(name)).toBeUndefined();
  });

  it("cannot be implemented or registered under a reserved name", () => {
    let code: string | undefined;
    try {
      createToolRegistry([
        defineTool({
          name: "agents_list",
          description: "x",
          parameters: Type.Object({}),
          execute: async () => toolSuccess(""),
        }),
      ]);
    } catch (err) {
      code = isRunnerError(err) ? err.code : "other";
    }
    expect(code).toBe("TOOL_RESERVED");
  });
});
