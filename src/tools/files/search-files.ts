import { constants, type Dirent } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import Type, { type Static } from "typebox";
import { defineTool, type Tool, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import type { HeldDir } from "../beneath/held-dir.js";
import { holdEntry, holdFolder, onHeldPaths } from "../beneath/held-entry.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";
import {
  fenceOf,
  fencePath,
  type PathFenceFactory,
  type PathFencePort,
  pathPermission,
} from "../path-fence-port.js";
import { UNEXPANDED_DIRS } from "./list-dir.js";
import { looksBinary } from "./text-file.js";

const SearchFilesParams = Type.Object(
  {
    pattern: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description:
          "Regular expression (RE2 syntax: no look-around or back-references) searched line by line. Omit to list the files the glob matches.",
      }),
    ),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          "Which files, relative to path (default **/*). A glob without '/' matches file names at any depth, e.g. *.ts",
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "Directory to search (default: the workspace)",
      }),
    ),
    literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regex" })),
    case_insensitive: Type.Optional(Type.Boolean({ description: "Ignore case (default false)" })),
    max_results: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: "Most matching lines (or files) to return (default 100)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SearchFilesArgs = Static<typeof SearchFilesParams>;

/** Options for {@link createSearchFilesTool}. */
export interface SearchFilesToolOptions {
  pathFence: PathFenceFactory;
  limits: BuiltinToolLimits;
}

/** Counters of one search, reported with its results. */
interface SearchStats {
  files: number;
  skippedLarge: number;
  skippedBinary: number;
  skippedProtected: number;
  deniedLinks: number;
  truncatedWalk: boolean;
}

/**
 * `search_files`: grep and find over the workspace. Files are chosen by a glob (picomatch) under a
 * fenced directory; lines are matched with RE2 (re2js), whose matching time is linear in the input,
 * so a model's pattern cannot stall the worker. The walk never follows a directory link, never
 * enters `.git` or `node_modules`, reads a linked file only when the guard's layer-2 check says its
 * target is inside the fence, skips protected files (credentials), binaries and large files, and
 * stops at the result and file caps.
 */
export function createSearchFilesTool(options: SearchFilesToolOptions): Tool<typeof SearchFilesParams> {
  const { limits } = options;
  return defineTool({
    name: "search_files",
    description:
      "Search file contents with a regular expression (RE2 syntax), or list files matching a glob when no pattern is given. Skips .git, node_modules, binary and very large files.",
    parameters: SearchFilesParams,
    riskLevel: "read_only",
    idempotent: true,
    timeoutSeconds: 60,
    checkPermissions(args, ctx) {
      const fence = fenceOf(options.pathFence, ctx);
      const base = args.path ?? ".";
      const pattern = fence.checkPattern(posix.join(base, args.glob ?? "**/*"), "read");
      if (pattern.verdict === "deny") return { behavior: "deny", reason: pattern.reason };
      return pathPermission(fence, [base], "read");
    },
    async execute(args, ctx) {
      const fence = fenceOf(options.pathFence, ctx);
      const shownBase = args.path ?? ".";
      const glob = args.glob ?? "**/*";
      const patternVerdict = fence.checkPattern(posix.join(shownBase, glob), "read");
      if (patternVerdict.verdict === "deny") {
        return toolFailure(
          "denied",
          `glob ${JSON.stringify(glob)} is not allowed: ${patternVerdict.reason}`,
          {
            rule: patternVerdict.rule,
          },
        );
      }
      if (glob.startsWith("/") || glob.split("/").includes("..")) {
        return toolFailure(
          "validation",
          `glob ${JSON.stringify(glob)} must be relative to path and may not contain '..'`,
          { fields: [{ field: "glob", problem: "must be relative and without '..'" }] },
        );
      }
      const fenced = fencePath(fence, shownBase, "read");
      if (!fenced.ok) return fenced.result;
      let regex: RE2JS | undefined;
      if (args.pattern !== undefined) {
        try {
          const source = args.literal ? RE2JS.quote(args.pattern) : args.pattern;
          regex = RE2JS.compile(source, args.case_insensitive ? RE2JS.CASE_INSENSITIVE : 0);
        } catch (err) {
          return toolFailure(
            "validation",
            `pattern is not a valid RE2 regular expression: ${(err as Error).message}`,
            {
              fields: [{ field: "pattern", problem: "is not a valid RE2 regular expression" }],
            },
          );
        }
      }
      const match = picomatch(glob, { dot: true, basename: !glob.includes("/") });
      const maxResults = Math.min(args.max_results ?? 100, limits.searchMaxResults);
      return onHeldPaths(shownBase, async () => {
        const held = await holdFolder(fenced.path);
        if (held === "missing") return toolFailure("business", `${shownBase} does not exist`);
        if (held === "not_folder") return toolFailure("business", `${shownBase} is not a directory`);
        try {
          return await search({
            fence,
            root: fenced.path,
            held,
            shownBase,
            match,
            regex,
            maxResults,
            limits,
          });
        } finally {
          held.close();
        }
      });
    },
  });
}

interface SearchInput {
  fence: PathFencePort;
  /** The real path of the searched folder (for fence checks), and the folder held by descriptor (for I/O). */
  root: string;
  held: HeldDir;
  shownBase: string;
  match: (path: string) => boolean;
  regex: RE2JS | undefined;
  maxResults: number;
  limits: BuiltinToolLimits;
}

async function search(input: SearchInput): Promise<ToolResult> {
  const { fence, limits, maxResults } = input;
  const stats: SearchStats = {
    files: 0,
    skippedLarge: 0,
    skippedBinary: 0,
    skippedProtected: 0,
    deniedLinks: 0,
    truncatedWalk: false,
  };
  const results: string[] = [];
  const filesWithMatches = new Set<string>();
  let capped = false;
  let stopped = false;
  const pending: string[] = [""];
  while (pending.length > 0) {
    const relDir = pending.pop() as string;
    let dir: HeldDir;
    try {
      // Walked down from the held root, one component at a time, never through a symbolic link.
      dir = input.held.descend(relDir);
    } catch {
      continue;
    }
    try {
      await searchFolder(dir, relDir);
    } finally {
      dir.close();
    }
    if (stopped) break;
  }
  const summary = summarise(input.regex !== undefined, results.length, filesWithMatches.size, stats, capped);
  const output = results.length === 0 ? summary : `${results.join("\n")}\n${summary}`;
  return toolSuccess(output, { results: results.length, capped, ...stats });

  async function searchFolder(dir: HeldDir, relDir: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(dir.self, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const dirs: string[] = [];
    for (const entry of entries) {
      const rel = relDir === "" ? entry.name : `${relDir}/${entry.name}`;
      const full = join(input.root, rel);
      if (entry.isDirectory()) {
        if (!UNEXPANDED_DIRS.has(entry.name)) dirs.push(rel);
        continue;
      }
      let realFile: string | undefined;
      if (entry.isSymbolicLink()) {
        // Layer 2: where the link really leads, checked before anything is read through it.
        const reached = fence.filterReached([full], "read");
        if (reached.allowed.length === 0) {
          stats.deniedLinks++;
          continue;
        }
        realFile = reached.allowed[0] as string;
      } else if (!entry.isFile()) {
        continue;
      }
      if (!input.match(rel)) continue;
      if (stats.files >= limits.searchMaxFiles) {
        stats.truncatedWalk = true;
        stopped = true;
        return;
      }
      if (fence.check(realFile ?? full, "write").rule === "path.protected") {
        stats.files++;
        stats.skippedProtected++;
        continue;
      }
      const file = await openRegularFile(dir, entry.name, realFile);
      if (file === undefined) continue;
      stats.files++;
      const shown = posix.join(input.shownBase, rel);
      try {
        if (!input.regex) {
          results.push(shown);
        } else {
          const found = await searchFile(
            file,
            shown,
            input.regex,
            limits,
            stats,
            maxResults - results.length,
          );
          if (found.length > 0) filesWithMatches.add(shown);
          results.push(...found);
        }
      } finally {
        await file.close();
      }
      if (results.length >= maxResults) {
        capped = true;
        stopped = true;
        return;
      }
    }
    // Pushed in reverse so the stack pops subdirectories in name order.
    pending.push(...dirs.reverse());
  }
}

type OpenFile = Awaited<ReturnType<typeof open>>;

/**
 * Opens a regular file found by the walk: `name` in the held `dir`, or, for a link whose target the
 * fence allowed, that target's real path through its held parent. Never follows a link at the end
 * (O_NOFOLLOW) and never blocks on a FIFO (O_NONBLOCK); undefined when it is not a regular file now.
 */
async function openRegularFile(
  dir: HeldDir,
  name: string,
  realTarget: string | undefined,
): Promise<OpenFile | undefined> {
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let handle: OpenFile | undefined;
  if (realTarget === undefined) {
    handle = await open(dir.entry(name), flags).catch(() => undefined);
  } else {
    let target: ReturnType<typeof holdEntry> | undefined;
    try {
      target = holdEntry(realTarget);
      handle = await open(target.at, flags).catch(() => undefined);
    } catch {
      handle = undefined;
    } finally {
      target?.dir.close();
    }
  }
  if (handle === undefined) return undefined;
  const info = await handle.stat().catch(() => undefined);
  if (info?.isFile()) return handle;
  await handle.close();
  return undefined;
}

async function searchFile(
  file: OpenFile,
  shown: string,
  regex: RE2JS,
  limits: BuiltinToolLimits,
  stats: SearchStats,
  room: number,
): Promise<string[]> {
  const info = await file.stat().catch(() => undefined);
  if (!info) return [];
  if (info.size > limits.searchMaxFileBytes) {
    stats.skippedLarge++;
    return [];
  }
  const bytes = await file.readFile().catch(() => undefined);
  if (!bytes) return [];
  if (looksBinary(bytes)) {
    stats.skippedBinary++;
    return [];
  }
  const found: string[] = [];
  const lines = bytes.toString("utf8").split("\n");
  for (let i = 0; i < lines.length && found.length < room; i++) {
    const line = lines[i] as string;
    if (!regex.matcher(line).find()) continue;
    const text = line.length > limits.lineMaxChars ? `${line.slice(0, limits.lineMaxChars)}…` : line;
    found.push(`${shown}:${i + 1}: ${text}`);
  }
  return found;
}

function summarise(grep: boolean, results: number, files: number, s: SearchStats, capped: boolean): string {
  const parts = [
    grep
      ? `${results} matching line${results === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"} (${s.files} searched)`
      : `${results} file${results === 1 ? "" : "s"}`,
  ];
  if (capped) parts.push(`stopped at ${results} results; narrow the glob or pattern`);
  if (s.truncatedWalk) parts.push(`stopped after ${s.files} files`);
  if (s.skippedLarge > 0) parts.push(`${s.skippedLarge} large skipped`);
  if (s.skippedBinary > 0) parts.push(`${s.skippedBinary} binary skipped`);
  if (s.skippedProtected > 0) parts.push(`${s.skippedProtected} protected skipped`);
  if (s.deniedLinks > 0) parts.push(`${s.deniedLinks} links leading outside skipped`);
  return `[${parts.join("; ")}]`;
}
