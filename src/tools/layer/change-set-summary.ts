import { createTwoFilesPatch } from "diff";
import { readHeldFile } from "../beneath/held-read.js";
import type { ChangeReview } from "./change-review.js";
import type { ChangeSet, LayerChange } from "./change-set.js";

/** Files listed one per line before the list is cut. */
const LISTED = 200;
/** Bytes of one file compared for the text diff; larger files are listed, not diffed. */
const DIFFED_FILE_BYTES = 64 * 1024;
/** Characters of the whole text diff shown to a person. */
export const SUMMARY_DIFF_CHARS = 12_000;

/** A change set as a person reviews it: on the approval page, in the mail, in /admin and `runs diff`. */
export interface ChangeSetSummary {
  readonly workspace: string;
  /** Why it waits for a person (empty: it lands by itself). */
  readonly reasons: readonly string[];
  readonly counts: {
    readonly added: number;
    readonly changed: number;
    readonly deleted: number;
    readonly links: number;
    readonly folders: number;
  };
  /** `A path (123 bytes)`, `M path`, `D path`, `L path -> target`, `F path/`; at most {@link LISTED}. */
  readonly files: readonly string[];
  /** Changes not listed. */
  readonly more: number;
  /** FIFOs and sockets the run left, which never land. */
  readonly skipped: readonly string[];
  /** A unified diff of the text files, cut to size ({@link SUMMARY_DIFF_CHARS} characters by default). */
  readonly diff: string;
}

function line(change: LayerChange): string {
  switch (change.kind) {
    case "mkdir":
      return `F ${change.path}/`;
    case "write":
      return `${change.existed ? "M" : "A"} ${change.path} (${change.size} bytes, mode ${(change.mode & 0o7777).toString(8)})`;
    case "symlink":
      return `L ${change.path} -> ${change.target}`;
    case "delete":
      return `D ${change.path}`;
  }
}

/** The text of a file for the diff, or undefined when it is binary, too large or not a file. */
async function textOf(path: string): Promise<string | undefined> {
  const read = await readHeldFile(path, DIFFED_FILE_BYTES).catch(() => undefined);
  if (read?.kind !== "file") return read?.kind === "missing" ? "" : undefined;
  if (read.bytes.includes(0)) return undefined;
  return read.bytes.toString("utf8");
}

/**
 * Summarises a change set for a person: counts, a file list and a text diff of what changed, both
 * cut to size. Files are read from the layer's upper folder and the real workspace by descriptor,
 * never following a link (the run may have planted links in either).
 */
export async function summariseChangeSet(
  set: ChangeSet,
  review: ChangeReview,
  folders: { readonly upper: string; readonly workspace: string },
  diffChars = SUMMARY_DIFF_CHARS,
): Promise<ChangeSetSummary> {
  const counts = { added: 0, changed: 0, deleted: 0, links: 0, folders: 0 };
  for (const change of set.changes) {
    if (change.kind === "write") change.existed ? counts.changed++ : counts.added++;
    else if (change.kind === "delete") counts.deleted++;
    else if (change.kind === "symlink") counts.links++;
    else counts.folders++;
  }
  let diff = "";
  for (const change of set.changes) {
    if (diff.length >= diffChars) break;
    if (change.kind !== "write" && change.kind !== "delete") continue;
    const before = await textOf(`${folders.workspace}/${change.path}`);
    const after = change.kind === "delete" ? "" : await textOf(`${folders.upper}/${change.path}`);
    if (before === undefined || after === undefined) {
      diff += `Binary or large file ${change.path} ${change.kind === "delete" ? "deleted" : "written"}\n`;
      continue;
    }
    diff += createTwoFilesPatch(`a/${change.path}`, `b/${change.path}`, before, after, undefined, undefined, {
      context: 2,
    });
  }
  if (diff.length > diffChars)
    diff = `${diff.slice(0, diffChars)}\n… (diff cut at ${diffChars} characters; \`echo-runner runs diff <run> --full\` shows it all)\n`;
  return {
    workspace: folders.workspace,
    reasons: review.reasons,
    counts,
    files: set.changes.slice(0, LISTED).map(line),
    more: Math.max(0, set.changes.length - LISTED),
    skipped: (set.skipped ?? []).slice(0, LISTED),
    diff,
  };
}
