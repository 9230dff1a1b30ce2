import Type from "typebox";
import type { Tool } from "../../catalog/index.js";
import { checkRevision } from "./git-arguments.js";
import { defineGitTool, type GitToolsOptions, gitCommonFields } from "./git-tool.js";

const GitLogParams = Type.Object(
  {
    ...gitCommonFields(),
    revision: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: "Where to start, or a range such as main..feature (default HEAD)",
      }),
    ),
    max_count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: "Most commits to list (default 20)" }),
    ),
    stat: Type.Optional(Type.Boolean({ description: "Add the files each commit changed (default false)" })),
  },
  { additionalProperties: false },
);

/** `git_log`: commits, newest first: hash, date, author, subject (and files with `stat`). */
export function createGitLogTool(options: GitToolsOptions): Tool<typeof GitLogParams> {
  return defineGitTool(options, {
    name: "git_log",
    description:
      "List commits of a git repository in the workspace, newest first: hash, date, author and subject, optionally the files each changed (read-only).",
    parameters: GitLogParams,
    command: (args, pathspec) => {
      const revision = args.revision ?? "HEAD";
      const invalid = checkRevision("revision", revision);
      if (invalid) return invalid;
      return [
        "log",
        `--max-count=${args.max_count ?? 20}`,
        "--format=%H %aI %an <%ae>%n    %s",
        "--no-show-signature",
        "--no-decorate",
        ...(args.stat ? ["--stat", "--no-ext-diff", "--no-textconv"] : []),
        "--end-of-options",
        revision,
        "--",
        ...pathspec,
      ];
    },
  });
}
