import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO_ROOT = resolve(import.meta.dirname, "..", "..");

/** Folders that are not the project's own text: installed packages, build output, runtime data. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", "data", ".git", "coverage", "results"]);
const CODE_EXTENSIONS = new Set([".ts", ".mjs", ".js"]);
const TEXT_EXTENSIONS = new Set([...CODE_EXTENSIONS, ".md", ".yml", ".yaml", ".sh"]);

/**
 * A mention of a markdown document: a path with a folder (`docs/DESIGN.md`) or an upper-case name
 * (`README.md`, found beside the file or in a folder above it). Lower-case bare names (`notes.md`,
 * `report.md`) are the workspace files of examples and tests, not documents of this repository.
 */
const DOC_MENTION = /(?<![\w./-])((?:\.{1,2}\/|[\w.-]+\/)*)([\w.-]+\.md)\b/g;
/** A file format the runner reads from workspaces (a skill's folder), not one of our documents. */
const FORMAT_NAMES = new Set(["SKILL.md"]);
/** A file of the repository named from its root (`src/guard/exec-host-table.ts`), wildcards aside. */
const REPO_FILE_MENTION =
  /(?<![\w./<>*-])((?:src|test|scripts|bench|workers|config|docs|bin)\/[\w.-]+(?:\/[\w.-]+)*\.(?:ts|md|mjs|js|yaml|yml|json|sh))(?![\w*/<-])/g;
/** Files the docs name that the runner or its user writes: the user's config, the bench's output. */
const WRITTEN_LATER = new Set(["config/echo-runner.yaml", "bench/results/latest.json"]);
/** A pointer into an issue tracker the repository does not contain: the word and a number, or `(#N)`. */
const TRACKER_ITEM = /\bissues?[\s-]+#?\d+|\(#\d+\)/gi;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(path, out);
    else if (TEXT_EXTENSIONS.has(extname(name))) out.push(path);
  }
  return out;
}

/** The comments of a script, found by the TypeScript parser (so `//` inside strings is no comment). */
function commentsOf(path: string, text: string): { text: string; pos: number }[] {
  const kind = path.endsWith(".ts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen].map(([pos, comment]) => ({ text: comment, pos }));
}

/** Markdown prose without fenced blocks and inline code, where `[x](y)` is an example, not a link. */
function proseOf(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsIn(markdownPath: string): Set<string> {
  const prose = readFileSync(markdownPath, "utf8").replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1] ?? "")));
}

function lineOf(text: string, pos: number): number {
  return text.slice(0, pos).split("\n").length;
}

/** Where a document mention resolves: beside the file, in a folder above it, or from the root. */
function resolvesTo(file: string, folders: string, name: string): boolean {
  const path = folders + name;
  if (existsSync(resolve(dirname(file), path)) || existsSync(resolve(REPO_ROOT, path))) return true;
  if (folders !== "") return false;
  for (let dir = dirname(file); dir.startsWith(REPO_ROOT); dir = dirname(dir)) {
    if (existsSync(join(dir, name))) return true;
    if (dir === REPO_ROOT) break;
  }
  return false;
}

const FILES = listFiles(REPO_ROOT);
const where = (file: string, text: string, pos: number) =>
  `${relative(REPO_ROOT, file).split(sep).join("/")}:${lineOf(text, pos)}`;

/** The text of each file a reader reads as prose: markdown whole, scripts by their comments. */
function readable(): { file: string; text: string; parts: { text: string; pos: number }[] }[] {
  return FILES.map((file) => {
    const text = readFileSync(file, "utf8");
    const parts = CODE_EXTENSIONS.has(extname(file)) ? commentsOf(file, text) : [{ text, pos: 0 }];
    return { file, text, parts };
  });
}

describe("references to documents", () => {
  const files = readable();

  it("finds the project's text to check", () => {
    expect(files.length).toBeGreaterThan(500);
    expect(files.some((f) => f.file.endsWith(join("docs", "DESIGN.md")))).toBe(true);
  });

  it("name only documents the repository contains", () => {
    const broken: string[] = [];
    for (const { file, text, parts } of files) {
      for (const part of parts) {
        for (const m of part.text.matchAll(DOC_MENTION)) {
          const folders = m[1] ?? "";
          const name = m[2] ?? "";
          if (FORMAT_NAMES.has(name)) continue;
          if (folders === "" && name === name.toLowerCase()) continue;
          if (!resolvesTo(file, folders, name)) {
            broken.push(`${where(file, text, part.pos + (m.index ?? 0))}: ${folders}${name}`);
          }
        }
      }
    }
    expect(broken, "mentions of documents that do not exist").toEqual([]);
  });

  it("link markdown to files and headings that exist", () => {
    const broken: string[] = [];
    for (const { file, text } of files.filter((f) => f.file.endsWith(".md"))) {
      for (const m of proseOf(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? "";
        if (/^[a-z]+:/i.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const resolved = path === "" ? file : resolve(dirname(file), decodeURI(path));
        const at = `${relative(REPO_ROOT, file)}: (${target})`;
        if (!existsSync(resolved)) broken.push(`${at} is no file`);
        else if (anchor && resolved.endsWith(".md") && !anchorsIn(resolved).has(anchor)) {
          broken.push(`${at} names no heading of ${relative(REPO_ROOT, resolved)}`);
        }
      }
    }
    expect(broken, "links to files or headings that do not exist").toEqual([]);
  });

  it("name in markdown only files of the repository that exist", () => {
    const broken: string[] = [];
    for (const { file, text } of files.filter((f) => f.file.endsWith(".md"))) {
      for (const m of text.matchAll(REPO_FILE_MENTION)) {
        const path = m[1] ?? "";
        if (WRITTEN_LATER.has(path) || existsSync(resolve(REPO_ROOT, path))) continue;
        broken.push(`${where(file, text, m.index ?? 0)}: ${path}`);
      }
    }
    expect(broken, "files that markdown names but the repository does not hold").toEqual([]);
  });

  it("point at no tracker item the repository does not contain", () => {
    const found: string[] = [];
    for (const { file, text } of files) {
      for (const m of text.matchAll(TRACKER_ITEM)) found.push(`${where(file, text, m.index ?? 0)}: ${m[0]}`);
    }
    expect(found, "say why in the text, or link a document of the repository").toEqual([]);
  });
});
