import { describe, expect, it } from "vitest";
import { EXEC_CLASS_TOOLS, isExecClassTool, pathArgumentsOf, TOOL_CATALOG } from "./index.js";
import { isRunLoopTool, isSubagentTool, RUN_LOOP_TOOLS, SUBAGENT_TOOLS } from "./tool-sets.js";

// The sets as they were written by hand before the catalog carried them: derivation must not
// change which tools are in them.
describe("tool sets derived from the catalog", () => {
  it("keeps the exec class to exec, execute_code and process", () => {
    expect(EXEC_CLASS_TOOLS).toEqual(["exec", "execute_code", "process"]);
    expect(isExecClassTool("execute_code")).toBe(true);
    expect(isExecClassTool("delegate_task")).toBe(false);
    expect(isExecClassTool("mcp__s__exec")).toBe(false);
  });

  it("lists the sub-agent tools and the run-loop tools (sub-agent tools and clarify)", () => {
    expect([...SUBAGENT_TOOLS].sort()).toEqual(["delegate_task", "spawn_task", "task", "workflow"]);
    expect([...RUN_LOOP_TOOLS].sort()).toEqual([
      "clarify",
      "delegate_task",
      "spawn_task",
      "task",
      "workflow",
    ]);
    expect(isSubagentTool("clarify")).toBe(false);
    expect(isRunLoopTool("clarify")).toBe(true);
  });

  it("gives the path arguments of the file and git tools", () => {
    const withPaths = TOOL_CATALOG.filter((e) => pathArgumentsOf(e.name) !== undefined).map((e) => [
      e.name,
      pathArgumentsOf(e.name)?.access,
    ]);
    expect(Object.fromEntries(withPaths)).toEqual({
      read_file: "read",
      list_dir: "read",
      search_files: "read",
      git_status: "read",
      git_log: "read",
      git_diff: "read",
      git_show: "read",
      knowledge_index: "read",
      write_file: "write",
      edit_file: "write",
      patch: "write",
      vision_analyze: "read",
      image_generate: "write",
      text_to_speech: "write",
      skill_install: "read",
    });
    expect(pathArgumentsOf("read_file")?.fields).toEqual(["path"]);
    expect(pathArgumentsOf("git_log")?.fields).toEqual(["repo", "path"]);
    expect(pathArgumentsOf("exec")).toBeUndefined();
  });
});
