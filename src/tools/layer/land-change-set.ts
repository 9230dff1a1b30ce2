import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, readFile, rename, rmdir, symlink, unlink } from "node:fs/promises";
import { join } from "node:path";
import { RunnerError } from "../../shared/index.js";
import type { HeldDir } from "../beneath/held-dir.js";
import { holdEntry, isMissing, withHeldEntry } from "../beneath/held-entry.js";
import type { ChangeSet, LayerChange } from "./change-set.js";

/**
 * Lands a run's change set in its real workspace. Every step goes through descriptors held from
 * the workspace's real path down (a link the run planted is never followed, neither in the layer
 * nor in the workspace), each file lands atomically (a temp file beside it, then rename), and every
 * step is idempotent: writing a file's content, making a folder, removing a path. A landing record
 * in the layer's folder says when it started and when it finished, so a worker killed mid-landing
 * lands the same set again from the start on resume (ending in the same workspace) and a landed set
 * is never landed twice.
 */

/** Options of {@link landChangeSet}. */
export interface LandingOptions {
  /** The layer's upper folder (real path): where written files' bytes come from. */
  readonly upper: string;
  /** The real workspace (real path). */
  readonly workspace: string;
  /** Where the landing record is kept (the layer's own folder, outside the upper). */
  readonly recordDir: string;
  /** Keep setuid/setgid bits (only when a person approved a set that sets them). Default false. */
  readonly keepSpecialBits?: boolean;
  /** Called after each step (tests kill the process here). */
  readonly afterStep?: (index: number, change: LayerChange) => Promise<void> | void;
}

/** What a landing did. */
export interface LandingReport {
  /** "landed" now, or "already" when the record says an earlier landing finished. */
  readonly outcome: "landed" | "already";
  readonly steps: number;
}

const RECORD = "landing.json";

interface LandingRecord {
  readonly v: 1;
  readonly state: "landing" | "landed";
  readonly steps: number;
  readonly at: number;
}

async function readRecord(dir: string): Promise<LandingRecord | undefined> {
  const text = await readFile(join(dir, RECORD), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as LandingRecord;
    if (record.v === 1 && (record.state === "landing" || record.state === "landed")) return record;
  } catch {}
  throw new RunnerError(
    "JOURNAL_CORRUPT",
    `the landing record ${join(dir, RECORD)} is not one; nothing was landed`,
  );
}

async function writeRecord(dir: string, record: LandingRecord): Promise<void> {
  const temp = join(dir, `.${RECORD}.${randomBytes(4).toString("hex")}`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(JSON.stringify(record));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, join(dir, RECORD));
}

const NO_FOLLOW_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Removes `name` in `dir` and everything below it, through descriptors; nothing there is fine. */
async function removeBeneath(dir: HeldDir, name: string): Promise<void> {
  const info = await lstat(dir.entry(name)).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isDirectory()) {
    await unlink(dir.entry(name)).catch((err: unknown) => {
      if (!isMissing(err)) throw err;
    });
    return;
  }
  const child = dir.child(name);
  try {
    for (const entry of await readdir(child.self)) await removeBeneath(child, entry);
  } finally {
    child.close();
  }
  await rmdir(dir.entry(name)).catch((err: unknown) => {
    if (!isMissing(err)) throw err;
  });
}

async function landOne(change: LayerChange, options: LandingOptions): Promise<void> {
  const target = `${options.workspace}/${change.path}`;
  const modeOf = (mode: number) => (options.keepSpecialBits ? mode : mode & 0o1777);
  switch (change.kind) {
    case "delete": {
      await withHeldEntry(target, {}, (entry) => removeBeneath(entry.dir, entry.name)).catch(
        (err: unknown) => {
          if (!isMissing(err)) throw err;
        },
      );
      return;
    }
    case "mkdir": {
      await withHeldEntry(target, { createParents: true }, async (entry) => {
        await mkdir(entry.at).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "EEXIST") throw err;
        });
        const handle = await open(
          entry.at,
          constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
        );
        try {
          await handle.chmod(modeOf(change.mode));
        } finally {
          await handle.close();
        }
      });
      return;
    }
    case "write": {
      const source = holdEntry(`${options.upper}/${change.path}`);
      let bytes: Buffer;
      try {
        const handle = await open(source.at, NO_FOLLOW_READ);
        try {
          if (!(await handle.stat()).isFile())
            throw new Error(`${change.path} in the layer is not a file any more`);
          bytes = await handle.readFile();
        } finally {
          await handle.close();
        }
      } finally {
        source.dir.close();
      }
      await withHeldEntry(target, { createParents: true }, async (entry) => {
        const temp = entry.dir.entry(`.${entry.name}.echo-land-${randomBytes(4).toString("hex")}`);
        const handle = await open(
          temp,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        try {
          await handle.writeFile(bytes);
          await handle.chmod(modeOf(change.mode));
        } catch (err) {
          await handle.close();
          await unlink(temp).catch(() => undefined);
          throw err;
        }
        await handle.close();
        await rename(temp, entry.at).catch(async (err: unknown) => {
          await unlink(temp).catch(() => undefined);
          throw err;
        });
      });
      return;
    }
    case "symlink": {
      await withHeldEntry(target, { createParents: true }, async (entry) => {
        const temp = entry.dir.entry(`.${entry.name}.echo-land-${randomBytes(4).toString("hex")}`);
        await symlink(change.target, temp);
        await rename(temp, entry.at).catch(async (err: unknown) => {
          await unlink(temp).catch(() => undefined);
          throw err;
        });
      });
      return;
    }
  }
}

export async function landChangeSet(set: ChangeSet, options: LandingOptions): Promise<LandingReport> {
  const record = await readRecord(options.recordDir);
  if (record?.state === "landed") return { outcome: "already", steps: record.steps };
  await writeRecord(options.recordDir, { v: 1, state: "landing", steps: set.changes.length, at: Date.now() });
  for (const [index, change] of set.changes.entries()) {
    await landOne(change, options);
    await options.afterStep?.(index, change);
  }
  await writeRecord(options.recordDir, { v: 1, state: "landed", steps: set.changes.length, at: Date.now() });
  return { outcome: "landed", steps: set.changes.length };
}

/** Whether a landing record says the set has landed. */
export async function hasLanded(recordDir: string): Promise<boolean> {
  return (await readRecord(recordDir))?.state === "landed";
}
