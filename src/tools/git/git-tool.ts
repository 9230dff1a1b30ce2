import { accessSync, constants } from "node:fs";
import Type, { type Static, type TObject } from "typebox";
import { defineTool, type Tool, type ToolFailure, type ToolReadiness } from "../../catalog/index.js";
import { fenceOf, type PathFenceFactory, type PathFencePort, pathPermission } from "../path-fence-port.js";
import { type GitRepository, openRepository, repositoryPath } from "./git-repository.js";
import { DEFAULT_GIT, type GitToolOptions, runGit } from "./git-runner.js";

/** The arguments every git tool takes: the repository and, optionally, one path in it. */
export interface GitToolArgs {
  readonly repo?: string | undefined;
  readonly path?: string | undefined;
}

/** Options of the git tool factories: the runner's and the workspace fence. */
export interface GitToolsOptions extends GitToolOptions {
  readonly pathFence: PathFenceFactory;
}

/** One git tool: its catalog name, schema, and the git command its arguments become. */
export interface GitToolSpec<T extends TObject> {
  readonly name: "git_status" | "git_log" | "git_diff" | "git_show";
  readonly description: string;
  readonly parameters: T;
  /**
   * The git command (subcommand first) for `args`, with `pathspec` (fenced, relative to the
   * repository, possibly empty) to place after `--`; or the `validation` failure.
   */
  command(args: Static<T> & GitToolArgs, pathspec: readonly string[]): readonly string[] | ToolFailure;
}

/** Whether the git binary can be run (checked when asked: a missing git makes the tools not ready). */
function gitReadiness(git: string): ToolReadiness {
  try {
    accessSync(git, constants.X_OK);
    return { ready: true, detail: `${git} is executable` };
  } catch {
    return { ready: false, detail: `${git} is not an executable file; install git or set its path` };
  }
}

/**
 * A read-only git tool (risk read_only, idempotent): fenced repository and path, then {@link runGit}
 * with the spec's command. Its permission opinion is the file tools' (a protected path asks).
 */
export function defineGitTool<T extends TObject>(options: GitToolsOptions, spec: GitToolSpec<T>): Tool<T> {
  const git = options.git ?? DEFAULT_GIT;
  return defineTool({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    riskLevel: "read_only",
    capabilities: ["fs.read"],
    idempotent: true,
    timeoutSeconds: (options.timeoutSeconds ?? 30) + 10,
    isReady: () => gitReadiness(git).ready,
    readinessDetail: () => gitReadiness(git),
    checkPermissions(args, ctx) {
      const { repo, path } = args as GitToolArgs;
      const paths = [repo ?? ".", ...(path === undefined ? [] : [path])];
      return pathPermission(fenceOf(options.pathFence, ctx), paths, "read");
    },
    async execute(args, ctx) {
      const fence = fenceOf(options.pathFence, ctx);
      const opened = await resolveCall(fence, args as GitToolArgs);
      if (!opened.ok) return opened.result;
      const command = spec.command(args as Static<T> & GitToolArgs, opened.pathspec);
      if (!Array.isArray(command)) return command as ToolFailure;
      return runGit(options, ctx, opened.repository, command);
    },
  });
}

async function resolveCall(
  fence: PathFencePort,
  args: GitToolArgs,
): Promise<{ ok: true; repository: GitRepository; pathspec: string[] } | { ok: false; result: ToolFailure }> {
  const opened = await openRepository(fence, args.repo);
  if (!opened.ok) return opened;
  const path = repositoryPath(fence, opened.repository, args.path);
  if (!path.ok) return path;
  return { ok: true, repository: opened.repository, pathspec: path.pathspec };
}

/** The schema fields every git tool has. */
export function gitCommonFields() {
  return {
    repo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description:
          "Folder of the repository (holding .git), relative to the workspace (default: the workspace)",
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "Limit to this file or folder, relative to the workspace",
      }),
    ),
  };
}
