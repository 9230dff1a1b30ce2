import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { assertNever, isRunnerError } from "../../shared/index.js";
import { onHeldPaths } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { fenceOf, type PathFenceFactory, pathPermission } from "../path-fence-port.js";
import { type CommitFs, commitPatch, type PatchFile, parseUnifiedDiff, planPatch } from "./patch-apply.js";

const PatchParams = Type.Object(
  {
    patch: Type.String({
      minLength: 1,
      maxLength: 4 * 1024 * 1024,
      description:
        "A unified diff (as from `git diff` or `diff -u`) of one or more files, paths relative to the workspace. Use /dev/null as the old name to create a file and as the new name to delete one.",
    }),
  },
  { additionalProperties: false },
);
export type PatchArgs = Static<typeof PatchParams>;

/** Options for {@link createPatchTool}. */
export interface PatchToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
  /** File operations of the commit step (tests inject failures). Default node:fs. */
  commitFs?: CommitFs;
}

function parseOrUndefined(text: string): PatchFile[] | undefined {
  try {
    return parseUnifiedDiff(text);
  } catch {
    return undefined;
  }
}

function pathsOf(files: readonly PatchFile[]): string[] {
  return files.flatMap((f) => [f.from, f.to]).filter((p): p is string => p !== undefined);
}

/**
 * `patch`: applies a unified diff, all-or-nothing. jsdiff parses and applies each file's hunks
 * (exact context, no fuzz); every file is checked and computed before the first one is written,
 * and the commit undoes itself if a rename fails midway. Every path goes through the fence's
 * write checks. A patch that deletes a file is destructive.
 */
export function createPatchTool(options: PatchToolOptions): Tool<typeof PatchParams> {
  const { limits } = options;
  return defineTool({
    name: "patch",
    description:
      "Apply a unified diff to one or more files, all-or-nothing: if any hunk does not apply exactly, no file is changed.",
    parameters: PatchParams,
    timeoutSeconds: 60,
    // Unparseable patches count as destructive (fail closed); execute rejects them anyway.
    isDestructive: (args) => parseOrUndefined(args.patch)?.some((f) => f.operation === "delete") ?? true,
    checkPermissions(args, ctx) {
      const files = parseOrUndefined(args.patch);
      if (!files) return { behavior: "passthrough" };
      return pathPermission(fenceOf(options.pathFence, ctx), pathsOf(files), "write");
    },
    async execute(args, ctx) {
      let files: PatchFile[];
      try {
        files = parseUnifiedDiff(args.patch);
      } catch (err) {
        return toolFailure("validation", `patch is not a usable unified diff: ${(err as Error).message}`, {
          fields: [{ field: "patch", problem: (err as Error).message }],
        });
      }
      const fence = fenceOf(options.pathFence, ctx);
      const real = new Map<string, string>();
      for (const path of pathsOf(files)) {
        const verdict = fence.check(path, "write");
        if (verdict.verdict === "deny") {
          return toolFailure(
            "denied",
            `patch touches ${JSON.stringify(path)}, which is not allowed: ${verdict.reason}; no file was changed`,
            {
              rule: verdict.rule,
              path,
            },
          );
        }
        real.set(path, verdict.resolvedPath);
      }
      return onHeldPaths(pathsOf(files).join(", "), async () => {
        const plan = await planPatch(files, (name) => real.get(name) as string, limits.fileMaxBytes);
        if (plan.problems.length > 0) {
          const list = plan.problems.map((p) => `${p.file} ${p.problem}`).join("; ");
          return toolFailure("business", `the patch does not apply, so no file was changed: ${list}`, {
            problems: plan.problems,
          });
        }
        try {
          await commitPatch(plan.changes, options.commitFs);
        } catch (err) {
          if (isRunnerError(err, "WORKSPACE_PATH_CHANGED")) throw err;
          return toolFailure(
            "business",
            `writing the patch failed and was undone: ${(err as Error).message}`,
          );
        }
        const summary = files.map((f) => {
          switch (f.operation) {
            case "create":
              return `created ${f.to}`;
            case "modify":
              return `modified ${f.to}`;
            case "delete":
              return `deleted ${f.from}`;
            case "rename":
              return `renamed ${f.from} to ${f.to}`;
            default:
              return assertNever(f.operation, "patch operation");
          }
        });
        return toolSuccess(`Applied the patch: ${summary.join(", ")}`, {
          files: files.map((f) => ({ operation: f.operation, from: f.from ?? null, to: f.to ?? null })),
        });
      });
    },
  });
}
