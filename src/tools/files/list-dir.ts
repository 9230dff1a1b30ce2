import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { isRunnerError } from "../../shared/index.js";
import type { HeldDir } from "../beneath/held-dir.js";
import { holdFolder, onHeldPaths } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import { fenceOf, fencePath, type PathFenceFactory, pathPermission } from "../path-fence-port.js";

const ListDirParams = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "Directory to list, relative to the workspace (default: the workspace)",
      }),
    ),
    depth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5,
        description: "How many levels to list (default 1: only the directory's own entries)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListDirArgs = Static<typeof ListDirParams>;

/** Directories listed but never descended into: large, generated, or internal. */
export const UNEXPANDED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Options for {@link createListDirTool}. */
export interface ListDirToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
}

/**
 * `list_dir`: a directory's entries (directories end in `/`, links show their target, files their
 * size), sorted, optionally a few levels deep. Symbolic links are shown, never followed, and
 * `.git` and `node_modules` are not descended into.
 */
export function createListDirTool(options: ListDirToolOptions): Tool<typeof ListDirParams> {
  const max = options.limits.listMaxEntries;
  return defineTool({
    name: "list_dir",
    description:
      "List a directory's entries: directories end in '/', symbolic links show '-> target', files show their size. depth > 1 lists subdirectories too (paths relative to the listed directory).",
    parameters: ListDirParams,
    riskLevel: "read_only",
    idempotent: true,
    checkPermissions(args, ctx) {
      return pathPermission(fenceOf(options.pathFence, ctx), [args.path ?? "."], "read");
    },
    execute: (args, ctx) =>
      onHeldPaths(args.path ?? ".", async () => {
        const shownPath = args.path ?? ".";
        const fenced = fencePath(fenceOf(options.pathFence, ctx), shownPath, "read");
        if (!fenced.ok) return fenced.result;
        const lines: string[] = [];
        let omitted = 0;
        // Every folder is listed through a descriptor held from the checked real path down: a folder
        // swapped for a symbolic link while the walk runs is refused, never followed.
        const walk = async (dir: HeldDir, prefix: string, level: number): Promise<void> => {
          let entries: Dirent[];
          try {
            entries = await readdir(dir.self, { withFileTypes: true });
          } catch (err) {
            lines.push(`${prefix}[unreadable: ${(err as NodeJS.ErrnoException).code ?? "error"}]`);
            return;
          }
          entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          for (const entry of entries) {
            if (lines.length >= max) {
              omitted++;
              continue;
            }
            const rel = `${prefix}${entry.name}`;
            const full = dir.entry(entry.name);
            if (entry.isDirectory()) {
              lines.push(`${rel}/`);
              if (level < (args.depth ?? 1) && !UNEXPANDED_DIRS.has(entry.name)) {
                let child: HeldDir;
                try {
                  child = dir.child(entry.name);
                } catch (err) {
                  // Gone or swapped for a link since readdir: listed, not entered.
                  lines.push(
                    `${rel}/  [not entered: ${isRunnerError(err) ? "changed while listing" : ((err as NodeJS.ErrnoException).code ?? "error")}]`,
                  );
                  continue;
                }
                try {
                  await walk(child, `${rel}/`, level + 1);
                } finally {
                  child.close();
                }
              }
            } else if (entry.isSymbolicLink()) {
              const target = await readlink(full).catch(() => "?");
              lines.push(`${rel} -> ${target}`);
            } else if (entry.isFile()) {
              const size = await lstat(full).then(
                (s) => s.size,
                () => undefined,
              );
              lines.push(size === undefined ? rel : `${rel}  (${formatSize(size)})`);
            } else {
              lines.push(`${rel}  (special file)`);
            }
          }
        };
        const root = await holdFolder(fenced.path);
        if (root === "missing") return toolFailure("business", `${shownPath} does not exist`);
        if (root === "not_folder") return toolFailure("business", `${shownPath} is not a directory`);
        try {
          await walk(root, "", 1);
        } finally {
          root.close();
        }
        if (lines.length === 0) return toolSuccess(`(${shownPath} is empty)`, { entries: 0 });
        if (omitted > 0) lines.push(`[${omitted} more entries not shown; list a subdirectory]`);
        return toolSuccess(lines.join("\n"), { entries: lines.length - (omitted > 0 ? 1 : 0), omitted });
      }),
  });
}

/** Bytes as a short human size: 512 B, 1.5 KiB, 3.2 MiB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
