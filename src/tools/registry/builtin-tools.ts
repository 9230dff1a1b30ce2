import type { AnyTool } from "../../catalog/index.js";
import { type BuiltinToolRuntime, resolveBuiltinLimits } from "../builtin-runtime.js";
import { createEditFileTool } from "../files/edit-file.js";
import { createListDirTool } from "../files/list-dir.js";
import { createPatchTool } from "../files/patch.js";
import { createReadFileTool } from "../files/read-file.js";
import { createReadSpillTool } from "../files/read-spill.js";
import { createSearchFilesTool } from "../files/search-files.js";
import { createWriteFileTool } from "../files/write-file.js";
import { createGitDiffTool } from "../git/git-diff.js";
import { createGitLogTool } from "../git/git-log.js";
import { createGitShowTool } from "../git/git-show.js";
import { createGitStatusTool } from "../git/git-status.js";
import type { GitToolsOptions } from "../git/git-tool.js";
import { createMemoryTool } from "../memory/memory.js";
import { createTodoTool } from "../memory/todo.js";
import { resolveEnvAllow } from "../process/child-env.js";
import { createExecTool } from "../process/exec.js";
import { createExecuteCodeTool } from "../process/execute-code.js";
import { createProcessTool } from "../process/process.js";
import type { ProcessToolOptions } from "../process/process-tool-options.js";

/**
 * The built-in file, git, process and run-state tools (read_file, list_dir, search_files, write_file,
 * edit_file, patch, git_status, git_log, git_diff, git_show, exec, execute_code, process, read_spill,
 * todo, memory), built from one runtime. The git tools run the host's git read-only, hardened
 * (src/tools/git), never through the exec host. Throws RunnerError TOOL_DEFINITION_INVALID for an invalid limit or an environment
 * allow-list entry that looks like a secret.
 */
export function createBuiltinTools(runtime: BuiltinToolRuntime): AnyTool[] {
  const limits = resolveBuiltinLimits(runtime.limits);
  const files = { pathFence: runtime.pathFence, limits };
  const processes: ProcessToolOptions = {
    pathFence: runtime.pathFence,
    processes: runtime.processes,
    execHost: runtime.execHost,
    ...(runtime.sandbox ? { sandbox: runtime.sandbox } : {}),
    env: runtime.env,
    envAllow: resolveEnvAllow(runtime.envAllow),
    limits,
    clock: runtime.clock,
  };
  const git: GitToolsOptions = {
    pathFence: runtime.pathFence,
    processes: runtime.processes,
    outputMaxBytes: limits.execOutputMaxBytes,
    ...(runtime.git ? { git: runtime.git } : {}),
  };
  const redis = { redis: runtime.redis, keyPrefix: runtime.keyPrefix, limits };
  return [
    createReadFileTool(files),
    createListDirTool(files),
    createSearchFilesTool(files),
    createWriteFileTool(files),
    createEditFileTool(files),
    createPatchTool(files),
    createGitStatusTool(git),
    createGitLogTool(git),
    createGitDiffTool(git),
    createGitShowTool(git),
    createExecTool(processes),
    createExecuteCodeTool({ ...processes, ...(runtime.tempDir ? { tempDir: runtime.tempDir } : {}) }),
    createProcessTool(processes),
    createReadSpillTool({ spill: runtime.spill }),
    createTodoTool({ ...redis, retentionMs: runtime.runStateRetentionMs }),
    createMemoryTool({ ...redis, clock: runtime.clock }),
  ];
}
