import Type from "typebox";
import { type Tool, toolFailure } from "../../catalog/index.js";
import { checkRevision } from "./git-arguments.js";
import { defineGitTool, type GitToolsOptions, gitCommonFields } from "./git-tool.js";

const GitDiffParams = Type.Object(
  {
    ...gitCommonFields(),
    base: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          "Compare from this revision (e.g. HEAD~1, main); default: the index (or HEAD with staged)",
      }),
    ),
    target: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: "Compare to this revision (needs base); default: the working tree",
      }),
    ),
    staged: Type.Optional(
      Type.Boolean({ description: "Compare the index (staged changes) instead of the working tree" }),
    ),
    stat: Type.Optional(Type.Boolean({ description: "Only a summary of changed files and line counts" })),
  },
  { additionalProperties: false },
);

/** `git_diff`: a unified diff between revisions, the index and the working tree. */
export function createGitDiffTool(options: GitToolsOptions): Tool<typeof GitDiffParams> {
  return defineGitTool(options, {
    name: "git_diff",
    description:
      "Show changes in a git repository in the workspace as a unified diff: working tree vs index, staged changes, or between two revisions (read-only). External diff programs and textconv filters are never run.",
    parameters: GitDiffParams,
    command: (args, pathspec) => {
      const revisions: string[] = [];
      for (const [field, value] of [
        ["base", args.base],
        ["target", args.target],
      ] as const) {
        if (value === undefined) continue;
        const invalid = checkRevision(field, value);
        if (invalid) return invalid;
        revisions.push(value);
      }
      if (args.target !== undefined && args.base === undefined) {
        return toolFailure("validation", "target needs base: give both revisions to compare two commits", {
          fields: [{ field: "base", problem: "is required with target" }],
        });
      }
      return [
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--ignore-submodules=all",
        ...(args.staged ? ["--cached"] : []),
        ...(args.stat ? ["--stat"] : []),
        "--end-of-options",
        ...revisions,
        "--",
        ...pathspec,
      ];
    },
  });
}
