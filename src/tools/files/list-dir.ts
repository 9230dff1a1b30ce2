import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
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
    async execute(args, ctx) {
      const shownPath = args.path ?? ".";
      const fenced = fencePath(fenceOf(options.pathFence, ctx), shownPath, "read");
      if (!fenced.ok) return fenced.result;
      const root = fenced.path;
      const rootStat = await lstat(root).catch(() => undefined);
      if (!rootStat) return toolFailure("business", `${shownPath} does not exist`);
      if (!rootStat.isDirectory()) return toolFailure("business", `${shownPath} is not a directory`);
      const lines: string[] = [];
      let omitted = 0;
      const walk = async (dir: string, prefix: string, level: number): Promise<void> => {
        let entries: Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
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
          const full = join(dir, entry.name);
          if (entry.isDirectory()) {
            lines.push(`${rel}/`);
            if (level < (args.depth ?? 1) && !UNEXPANDED_DIRS.has(entry.name)) {
              await walk(full, `${rel}/`, level + 1);
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
      await walk(root, "", 1);
      if (lines.length === 0) return toolSuccess(`(${shownPath} is empty)`, { entries: 0 });
      if (omitted > 0) lines.push(`[${omitted} more entries not shown; list a subdirectory]`);
      return toolSuccess(lines.join("\n"), { entries: lines.length - (omitted > 0 ? 1 : 0), omitted });
    },
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
