import Type from "typebox";
import type { Tool } from "../../catalog/index.js";
import { defineGitTool, type GitToolsOptions, gitCommonFields } from "./git-tool.js";

const GitStatusParams = Type.Object(gitCommonFields(), { additionalProperties: false });

/** `git_status`: the branch and the changed and untracked files (`git status --short --branch`). */
export function createGitStatusTool(options: GitToolsOptions): Tool<typeof GitStatusParams> {
  return defineGitTool(options, {
    name: "git_status",
    description:
      "Show the current branch and the changed, staged and untracked files of a git repository in the workspace (read-only).",
    parameters: GitStatusParams,
    command: (_args, pathspec) => [
      "status",
      "--short",
      "--branch",
      "--untracked-files=normal",
      "--ignore-submodules=all",
      "--no-renames",
      "--",
      ...pathspec,
    ],
  });
}
