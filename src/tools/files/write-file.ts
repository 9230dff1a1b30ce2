import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { onHeldPaths, withHeldEntry } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { fenceOf, fencePath, type PathFenceFactory, pathPermission } from "../path-fence-port.js";
import { atomicWriteFile, statIfExists } from "./atomic-write.js";

const WriteFileParams = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "File to write, relative to the workspace; missing parent directories are created",
    }),
    content: Type.String({ description: "The file's complete new content (UTF-8)" }),
  },
  { additionalProperties: false },
);
export type WriteFileArgs = Static<typeof WriteFileParams>;

/** Options for {@link createWriteFileTool}. */
export interface WriteFileToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
}

/**
 * `write_file`: creates or replaces a file with the given content, atomically (a temp file beside
 * it, then rename), so a reader or a crash never sees half a file. When the file already holds the
 * content nothing is written, which makes a repeated call a no-op: the tool is idempotent. Writes
 * go through the fence's write checks (workspace, `safe_write_root`, protected paths).
 */
export function createWriteFileTool(options: WriteFileToolOptions): Tool<typeof WriteFileParams> {
  const { limits } = options;
  return defineTool({
    name: "write_file",
    description:
      "Create or overwrite a UTF-8 text file with the given content. Writing the content a file already has changes nothing.",
    parameters: WriteFileParams,
    idempotent: true,
    isDestructive: () => false,
    checkPermissions(args, ctx) {
      return pathPermission(fenceOf(options.pathFence, ctx), [args.path], "write");
    },
    execute: (args, ctx) =>
      onHeldPaths(args.path, async () => {
        if (args.content.length > limits.writeMaxChars) {
          return toolFailure(
            "validation",
            `content is ${args.content.length} chars, over the ${limits.writeMaxChars}-char limit of write_file`,
            { fields: [{ field: "content", problem: `must be at most ${limits.writeMaxChars} chars` }] },
          );
        }
        const fenced = fencePath(fenceOf(options.pathFence, ctx), args.path, "write");
        if (!fenced.ok) return fenced.result;
        // Missing folders are created through held descriptors, never through a symbolic link.
        const outcome = await withHeldEntry(fenced.path, { createParents: true }, async (entry) => {
          const existing = await statIfExists(entry.at);
          if (existing && !existing.isFile) return "not_file" as const;
          return atomicWriteFile(entry.at, args.content);
        });
        if (outcome === "not_file") {
          return toolFailure(
            "business",
            `${args.path} exists and is not a regular file; nothing was written`,
          );
        }
        const bytes = Buffer.byteLength(args.content, "utf8");
        const message =
          outcome === "unchanged"
            ? `${args.path} already has this content (${bytes} bytes); nothing was written`
            : `${outcome === "created" ? "Created" : "Replaced"} ${args.path} (${bytes} bytes)`;
        return toolSuccess(message, { path: args.path, outcome, bytes });
      }),
  });
}
