import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { onHeldPaths } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { fenceOf, fencePath, type PathFenceFactory, pathPermission } from "../path-fence-port.js";
import { readTextAt, textReadFailure } from "./text-file.js";

const ReadFileParams = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "File to read, relative to the workspace (or absolute inside it)",
    }),
    offset: Type.Optional(
      Type.Integer({ minimum: 1, description: "First line to return, 1-based (default 1)" }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100_000, description: "Most lines to return (default 2000)" }),
    ),
  },
  { additionalProperties: false },
);
export type ReadFileArgs = Static<typeof ReadFileParams>;

/** Options for {@link createReadFileTool}. */
export interface ReadFileToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
}

/** Splits text into lines; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * `read_file`: a UTF-8 text file's lines, numbered like `cat -n` (the number and tab are not part
 * of the file), optionally a range. Binary files and files over the size cap are refused with the
 * reason; a path outside the fence is a `denied` result.
 */
export function createReadFileTool(options: ReadFileToolOptions): Tool<typeof ReadFileParams> {
  const { limits } = options;
  return defineTool({
    name: "read_file",
    description:
      "Read a UTF-8 text file. Returns lines as '<number>\\t<text>' (the prefix is not part of the file). Use offset/limit for a range of lines.",
    parameters: ReadFileParams,
    riskLevel: "read_only",
    idempotent: true,
    checkPermissions(args, ctx) {
      return pathPermission(fenceOf(options.pathFence, ctx), [args.path], "read");
    },
    execute: (args, ctx) =>
      onHeldPaths(args.path, async () => {
        const fenced = fencePath(fenceOf(options.pathFence, ctx), args.path, "read");
        if (!fenced.ok) return fenced.result;
        const read = await readTextAt(fenced.path, limits.fileMaxBytes);
        if (read.kind !== "text") return textReadFailure(args.path, read, limits.fileMaxBytes);
        const lines = splitLines(read.text);
        const start = args.offset ?? 1;
        const count = args.limit ?? limits.readDefaultLines;
        if (lines.length === 0) {
          return toolSuccess(`(${args.path} is empty)`, { path: args.path, totalLines: 0 });
        }
        if (start > lines.length) {
          return toolFailure(
            "business",
            `offset ${start} is past the end of ${args.path}, which has ${lines.length} lines`,
          );
        }
        const end = Math.min(lines.length, start + count - 1);
        const width = String(end).length;
        const shown = lines.slice(start - 1, end).map((line, i) => {
          const text =
            line.length > limits.lineMaxChars
              ? `${line.slice(0, limits.lineMaxChars)}… [line cut at ${limits.lineMaxChars} chars]`
              : line;
          return `${String(start + i).padStart(width)}\t${text}`;
        });
        if (start > 1 || end < lines.length) {
          shown.push(
            end < lines.length
              ? `[lines ${start}-${end} of ${lines.length}; continue with offset ${end + 1}]`
              : `[lines ${start}-${end} of ${lines.length}]`,
          );
        }
        return toolSuccess(shown.join("\n"), {
          path: args.path,
          totalLines: lines.length,
          startLine: start,
          endLine: end,
        });
      }),
  });
}
