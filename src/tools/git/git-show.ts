import Type from "typebox";
import type { Tool } from "../../catalog/index.js";
import { checkRevision } from "./git-arguments.js";
import { defineGitTool, type GitToolsOptions, gitCommonFields } from "./git-tool.js";

const GitShowParams = Type.Object(
  {
    ...gitCommonFields(),
    revision: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: "The commit to show (default HEAD), or rev:file for a file as of that commit",
      }),
    ),
    stat: Type.Optional(
      Type.Boolean({ description: "The commit's message and changed files only, without the patch" }),
    ),
  },
  { additionalProperties: false },
);

/** `git_show`: one commit (header, message, patch) or one file as of a commit. */
export function createGitShowTool(options: GitToolsOptions): Tool<typeof GitShowParams> {
  return defineGitTool(options, {
    name: "git_show",
    description:
      "Show one commit of a git repository in the workspace (author, date, message and patch), or a file as of a commit with rev:path (read-only).",
    parameters: GitShowParams,
    command: (args, pathspec) => {
      const revision = args.revision ?? "HEAD";
      const invalid = checkRevision("revision", revision, { allowPath: true });
      if (invalid) return invalid;
      return [
        "show",
        "--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n%w(0,4,4)%B",
        "--no-show-signature",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        ...(args.stat ? ["--stat"] : []),
        "--end-of-options",
        revision,
        "--",
        ...pathspec,
      ];
    },
  });
}
