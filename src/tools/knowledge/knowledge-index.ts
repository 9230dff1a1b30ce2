import { createHash } from "node:crypto";
import { lstat, readdir, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import Type from "typebox";
import {
  defineTool,
  type Tool,
  type ToolReadiness,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import type { HeldDir } from "../beneath/held-dir.js";
import { holdFolder } from "../beneath/held-entry.js";
import { openHeldFile, readHeldFile } from "../beneath/held-read.js";
import { resolveInside } from "../inside-path.js";
import { chunkText, type KnowledgeChunk } from "./knowledge-chunks.js";
import { type KnowledgeStore, knowledgeScope } from "./knowledge-store.js";

/** Files larger than this are not indexed, bytes. */
export const KNOWLEDGE_MAX_FILE_BYTES = 1024 * 1024;
/** Default and upper bound of `max_files`. */
export const KNOWLEDGE_DEFAULT_FILES = 5_000;
export const KNOWLEDGE_MAX_FILES = 20_000;

const SKIPPED_DIRS = new Set(["node_modules", "dist", "build", "coverage", "__pycache__"]);

const KnowledgeIndexParams = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: "Folder or file in the workspace (default: all of it)",
      }),
    ),
    max_files: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: KNOWLEDGE_MAX_FILES,
        description: `Most files read (default ${KNOWLEDGE_DEFAULT_FILES})`,
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * What a knowledge tool call works on: the store and the workspace's real path, or the failure the
 * tool returns (no store: `not_ready`; no workspace on disk: `business`).
 */
export async function knowledgeWorkspace(
  store: KnowledgeStore | undefined,
  workspace: string,
): Promise<{ ok: true; store: KnowledgeStore; root: string } | { ok: false; result: ToolResult }> {
  if (!store) return { ok: false, result: toolFailure("not_ready", knowledgeReadiness(store).detail) };
  const root = await realpath(workspace).catch(() => undefined);
  if (!root)
    return { ok: false, result: toolFailure("business", `the workspace ${workspace} does not exist`) };
  return { ok: true, store, root };
}

/** Readiness of the knowledge tools: they need Redis. */
export function knowledgeReadiness(store: KnowledgeStore | undefined): ToolReadiness {
  return store
    ? { ready: true, detail: "knowledge base in Redis" }
    : { ready: false, detail: "no Redis client was given for the knowledge base" };
}

interface ReadFile {
  readonly rel: string;
  readonly sha256: string;
  readonly text: string;
}

/**
 * `knowledge_index`: chunks the text files under a workspace path and indexes them for
 * knowledge_search, incrementally: a file whose content hash is unchanged is skipped, a changed one
 * replaces its chunks, a deleted one is dropped. Skips dot folders, node_modules and build output,
 * symlinks, binary files and files over 1 MiB. Re-running with unchanged files changes nothing.
 */
export function createKnowledgeIndexTool(
  store: KnowledgeStore | undefined,
): Tool<typeof KnowledgeIndexParams> {
  return defineTool({
    name: "knowledge_index",
    description:
      "Index the workspace's text files (or a folder of them) for knowledge_search; only changed files are re-read.",
    parameters: KnowledgeIndexParams,
    riskLevel: "write",
    idempotent: true,
    timeoutSeconds: 300,
    readinessDetail: () => knowledgeReadiness(store),
    async execute(args, ctx) {
      const workspace = await knowledgeWorkspace(store, ctx.workspace);
      if (!workspace.ok) return workspace.result;
      const { root } = workspace;
      const start = await resolveInside(root, args.path ?? ".");
      if (!start.ok) return toolFailure("denied", `knowledge_index: ${start.problem}`);
      const limit = args.max_files ?? KNOWLEDGE_DEFAULT_FILES;
      const walked = await walk(root, start.path, limit);
      const prefix = toRel(root, start.path);
      const seen = new Set(walked.files.map((f) => f.rel));
      const summary = await workspace.store.update(knowledgeScope(root), async (snapshot) => {
        const put = new Map<string, { sha256: string; chunks: readonly KnowledgeChunk[] }>();
        let unchanged = 0;
        let added = 0;
        for (const file of walked.files) {
          const known = snapshot.files.get(file.rel);
          if (known?.sha256 === file.sha256) {
            unchanged++;
            continue;
          }
          if (!known) added++;
          put.set(file.rel, { sha256: file.sha256, chunks: chunkText(file.rel, file.text) });
        }
        // Only files under the indexed path can have disappeared; a truncated walk proves nothing.
        const remove = walked.truncated
          ? []
          : [...snapshot.files.keys()].filter((p) => isUnder(p, prefix) && !seen.has(p));
        const chunks = [...put.values()].reduce((n, f) => n + f.chunks.length, 0);
        return {
          changes: { put, remove },
          summary: {
            added,
            updated: put.size - added,
            removed: remove.length,
            unchanged,
            chunks,
            total: snapshot.files.size - remove.length + added,
          },
        };
      });
      const lines = [
        `Indexed ${prefix || "the workspace"}: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged (${summary.chunks} new chunks; ${summary.total} files in the knowledge base).`,
      ];
      if (walked.skipped > 0) lines.push(`Skipped ${walked.skipped} binary or oversize files.`);
      if (walked.truncated)
        lines.push(`Stopped after ${limit} files (max_files); removals were not applied.`);
      return toolSuccess(lines.join("\n"), {
        ...summary,
        skipped: walked.skipped,
        truncated: walked.truncated,
      });
    },
  });
}

async function walk(
  root: string,
  start: string,
  limit: number,
): Promise<{ files: ReadFile[]; skipped: number; truncated: boolean }> {
  const files: ReadFile[] = [];
  let skipped = 0;
  let truncated = false;
  // Folders are walked by descriptor from the checked start, never through a link, and each file
  // is read from the folder held (O_NOFOLLOW), so a folder swapped for a link mid-walk leads nowhere.
  const take = (path: string, bytes: Buffer | undefined): void => {
    if (bytes === undefined || bytes.subarray(0, 8192).includes(0)) {
      skipped++;
      return;
    }
    files.push({
      rel: toRel(root, path),
      sha256: createHash("sha256").update(bytes).digest("hex"),
      text: bytes.toString("utf8"),
    });
  };
  const visitFolder = async (dir: HeldDir, path: string): Promise<void> => {
    for (const name of (await readdir(dir.self)).sort()) {
      if (truncated) return;
      if (name.startsWith(".") || SKIPPED_DIRS.has(name)) continue;
      const stat = await lstat(dir.entry(name)).catch(() => undefined);
      if (stat?.isDirectory()) {
        let child: HeldDir;
        try {
          child = dir.child(name);
        } catch {
          continue;
        }
        try {
          await visitFolder(child, join(path, name));
        } finally {
          child.close();
        }
        continue;
      }
      if (!stat?.isFile()) continue;
      if (files.length >= limit) {
        truncated = true;
        return;
      }
      const file = await openHeldFile(dir, name);
      if (file === undefined) continue;
      try {
        const size = (await file.stat()).size;
        take(join(path, name), size > KNOWLEDGE_MAX_FILE_BYTES ? undefined : await file.readFile());
      } finally {
        await file.close();
      }
    }
  };
  const folder = await holdFolder(start);
  if (folder === "missing") return { files, skipped, truncated };
  if (folder === "not_folder") {
    const read = await readHeldFile(start, KNOWLEDGE_MAX_FILE_BYTES);
    if (read.kind === "file") take(start, read.bytes);
    else if (read.kind === "too_large") skipped++;
    return { files, skipped, truncated };
  }
  try {
    await visitFolder(folder, start);
  } finally {
    folder.close();
  }
  return { files, skipped, truncated };
}

function toRel(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

function isUnder(path: string, prefix: string): boolean {
  return prefix === "" || path === prefix || path.startsWith(`${prefix}/`);
}
