import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { holdEntry, onHeldPaths } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { fenceOf, fencePath, type PathFenceFactory, pathPermission } from "../path-fence-port.js";
import { atomicWriteFile } from "./atomic-write.js";
import { readTextFile, textReadFailure } from "./text-file.js";

const EditFileParams = Type.Object(
  {
    path: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "File to edit, relative to the workspace",
    }),
    old_string: Type.String({
      minLength: 1,
      description:
        "Exact text to replace; it must occur exactly once in the file (include surrounding lines to make it unique)",
    }),
    new_string: Type.String({ description: "Text to put in its place" }),
  },
  { additionalProperties: false },
);
export type EditFileArgs = Static<typeof EditFileParams>;

/** Options for {@link createEditFileTool}. */
export interface EditFileToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
}

/** Where `needle` occurs in `text` (non-overlapping), up to `max` occurrences. */
export function findOccurrences(text: string, needle: string, max = 1000): number[] {
  const found: number[] = [];
  for (
    let at = text.indexOf(needle);
    at !== -1 && found.length < max;
    at = text.indexOf(needle, at + needle.length)
  ) {
    found.push(at);
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * `edit_file`: replaces one exact occurrence of `old_string`. Zero matches or several fail with
 * the count (and the lines of the matches), and nothing is written; the file is rewritten
 * atomically. Not idempotent: after an edit `old_string` is usually gone, so a re-run fails rather
 * than editing twice.
 */
export function createEditFileTool(options: EditFileToolOptions): Tool<typeof EditFileParams> {
  const { limits } = options;
  return defineTool({
    name: "edit_file",
    description:
      "Replace exactly one occurrence of old_string with new_string in a text file. Fails without changing anything when old_string occurs zero or several times.",
    parameters: EditFileParams,
    isDestructive: () => false,
    checkPermissions(args, ctx) {
      return pathPermission(fenceOf(options.pathFence, ctx), [args.path], "write");
    },
    execute: (args, ctx) =>
      onHeldPaths(args.path, async () => {
        if (args.old_string === args.new_string) {
          return toolFailure("validation", "new_string must differ from old_string", {
            fields: [{ field: "new_string", problem: "must differ from old_string" }],
          });
        }
        const fenced = fencePath(fenceOf(options.pathFence, ctx), args.path, "write");
        if (!fenced.ok) return fenced.result;
        let entry: ReturnType<typeof holdEntry>;
        try {
          entry = holdEntry(fenced.path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT")
            return toolFailure("business", `${args.path} does not exist`);
          throw err;
        }
        try {
          const read = await readTextFile(entry.at, limits.fileMaxBytes);
          if (read.kind !== "text") return textReadFailure(args.path, read, limits.fileMaxBytes);
          const matches = findOccurrences(read.text, args.old_string);
          if (matches.length === 0) {
            return toolFailure(
              "business",
              `old_string does not occur in ${args.path}; nothing was changed (read the file again: it must match exactly, whitespace included)`,
              { matches: 0 },
            );
          }
          if (matches.length > 1) {
            const lines = matches.slice(0, 20).map((at) => lineOf(read.text, at));
            return toolFailure(
              "business",
              `old_string occurs ${matches.length} times in ${args.path} (lines ${lines.join(", ")}); nothing was changed. Include more surrounding text so it occurs once.`,
              { matches: matches.length, lines },
            );
          }
          const at = matches[0] as number;
          const next =
            read.text.slice(0, at) + args.new_string + read.text.slice(at + args.old_string.length);
          await atomicWriteFile(entry.at, next);
          const line = lineOf(read.text, at);
          return toolSuccess(`Edited ${args.path}: replaced 1 occurrence at line ${line}`, {
            path: args.path,
            line,
          });
        } finally {
          entry.dir.close();
        }
      }),
  });
}
