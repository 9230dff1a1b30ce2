import { createHash } from "node:crypto";
import {
  chmod,
  chown,
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { RunnerError } from "../../shared/index.js";
import type { WorkspaceView } from "../beneath/workspace-view.js";
import { type ChangeReview, reviewChangeSet } from "./change-review.js";
import { type ChangeSet, readChangeSet } from "./change-set.js";
import { changeSetDigest } from "./change-set-digest.js";
import { type ChangeSetSummary, summariseChangeSet } from "./change-set-summary.js";
import { hasLanded, type LandingReport, landChangeSet } from "./land-change-set.js";
import { type LayerLock, lockLayer } from "./layer-lock.js";
import { type LayerNamespace, type LayerPrograms, openLayerNamespace } from "./layer-namespace.js";

/** Where a layer is in its life. */
export const LAYER_STATES = ["open", "kept", "landed", "discarded"] as const;
export type LayerState = (typeof LAYER_STATES)[number];

/** What `<data>/layers/<run>/layer.json` records. */
export interface LayerRecord {
  readonly v: 1;
  /** The layer's id: the run tree's trace id (a run and its sub-agents share one layer). */
  readonly layerId: string;
  /** The run that made it: the tree's root, which lands it when it ends. */
  readonly runId: string;
  readonly workspace: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly state: LayerState;
  /** Why it was kept, landed or discarded, and by whom. */
  readonly note?: string;
}

/** A layer's change set as a person and the landing see it. */
export interface LayerChanges {
  readonly record: LayerRecord;
  readonly set: ChangeSet;
  readonly review: ChangeReview;
  /** SHA-256 of the set and every written file's bytes: what an approval of the landing binds to. */
  readonly digest: string;
}

/** Options of {@link RunLayers}. */
export interface RunLayersOptions {
  /** `<data>/layers`: one folder per run. */
  readonly dir: string;
  readonly programs?: LayerPrograms;
}

const RECORD = "layer.json";
/** The runs of the tree, one file each, written before each is queued: `{ runId, parentRunId }`. */
const MEMBERS = "runs";

/** A run of a layer's tree, as {@link RunLayers.adopt} recorded it. */
export interface LayerMember {
  readonly runId: string;
  /** The run that started it. */
  readonly parentRunId: string;
}

/** A layer id as a folder name: itself when it is plain, else a digest (never a path). */
export function layerFolderName(layerId: string): string {
  return /^[A-Za-z0-9_.:-]{1,128}$/.test(layerId) && !layerId.startsWith(".")
    ? layerId.replaceAll(":", "_")
    : `layer-${createHash("sha256").update(layerId).digest("hex").slice(0, 32)}`;
}

/** An open layer of this worker and the runs using it. */
interface OpenLayer {
  readonly mounting: Promise<LayerNamespace>;
  readonly users: Set<string>;
}

/**
 * The copy-on-write layers of a worker's runs (docs/SANDBOX.md). A run tree (a run and the sub-agents it
 * delegates to, which share its trace id) has one layer, so a sub-agent sees its parent's work and
 * its own writes are part of the tree's change set. The root's first tool call opens it (made the
 * first time, mounted again after a crash or a park: the upper folder in the data dir is the
 * state); every tool call of the tree then works in it; the root's end reads the change set from
 * the upper folder and lands it in the real workspace, or keeps it for a person. Runs of one tree
 * in one worker share one mount namespace.
 */
export class RunLayers {
  readonly #open = new Map<string, OpenLayer>();

  constructor(private readonly options: RunLayersOptions) {}

  /** The layer's folder. */
  folderOf(layerId: string): string {
    return join(this.options.dir, layerFolderName(layerId));
  }

  /** The layer's record, or undefined when there is none. */
  async record(layerId: string): Promise<LayerRecord | undefined> {
    return readRecord(this.folderOf(layerId));
  }

  /** The layer a run made (by the root run's id) or of that layer id, or undefined. */
  async find(id: string): Promise<LayerRecord | undefined> {
    const direct = await this.record(id).catch(() => undefined);
    if (direct !== undefined) return direct;
    return (await this.list()).find((r) => r.runId === id);
  }

  /** Every layer in the data dir, newest first (unreadable ones are skipped). */
  async list(): Promise<LayerRecord[]> {
    const names = await readdir(this.options.dir).catch(() => [] as string[]);
    const records: LayerRecord[] = [];
    for (const name of names) {
      const record = await readRecord(join(this.options.dir, name)).catch(() => undefined);
      if (record) records.push(record);
    }
    return records.sort((a, b) => b.createdAt - a.createdAt);
  }

  /**
   * Opens (making it the first time) layer `layerId` over `workspace` for run `runId` and returns
   * its view. `runId` is recorded as the layer's run when it makes the layer (the tree's root).
   */
  async enter(layerId: string, runId: string, given: string): Promise<WorkspaceView> {
    // The layer lies over the workspace's real path: the one the path fence and the sandbox use.
    const workspace = await realpath(given).catch((err: NodeJS.ErrnoException) => {
      throw new RunnerError(
        "WORKSPACE_LAYER_FAILED",
        `the run's workspace ${given} ${err.code === "ENOENT" ? "does not exist" : `cannot be reached (${err.code ?? err.message})`}: create it, or give the agent a workspace that exists (agents.<name>.workspace); nothing of the run was done`,
        { data: { workspace: given } },
      );
    });
    let open = this.#open.get(layerId);
    if (open === undefined) {
      open = { mounting: this.#mount(layerId, runId, workspace), users: new Set() };
      this.#open.set(layerId, open);
      const opened = open;
      opened.mounting.catch(() => {
        if (this.#open.get(layerId) === opened) this.#open.delete(layerId);
      });
    }
    open.users.add(runId);
    const layer = await open.mounting;
    if (layer.view.workspace !== workspace) {
      throw new RunnerError(
        "WORKSPACE_LAYER_FAILED",
        `the layer of run ${runId} lies over ${layer.view.workspace}; a call of it cannot work in ${workspace} (a sub-agent works in its parent's workspace)`,
        { data: { runId, workspace } },
      );
    }
    return layer.view;
  }

  /**
   * Run `runId` lets go of the layers it used here (its processes are stopped first by the caller);
   * a namespace no run of this worker uses any more is closed.
   */
  async release(runId: string): Promise<void> {
    for (const [layerId, open] of [...this.#open]) {
      if (!open.users.delete(runId) || open.users.size > 0) continue;
      this.#open.delete(layerId);
      (await open.mounting.catch(() => undefined))?.close();
    }
  }

  /** Closes layer `layerId`'s namespace whoever uses it (its landing is about to read the upper folder). */
  async #releaseLayer(layerId: string): Promise<void> {
    const open = this.#open.get(layerId);
    if (open === undefined) return;
    this.#open.delete(layerId);
    (await open.mounting.catch(() => undefined))?.close();
  }

  /**
   * Runs `act` on layer `layerId`'s folders with no mount of it anywhere: this process lets go of
   * its own, and another process's (a worker, a landing) makes it WORKSPACE_LAYER_BUSY.
   */
  async #exclusive<T>(layerId: string, act: (folder: string) => Promise<T>): Promise<T> {
    await this.#releaseLayer(layerId);
    const folder = this.folderOf(layerId);
    const lock: LayerLock = await lockLayer(
      folder,
      (await readRecord(folder).catch(() => undefined))?.runId ?? layerId,
    );
    try {
      return await act(folder);
    } finally {
      lock.release();
    }
  }

  /**
   * Records runs of the tree before they are queued (a run's children, a flow's steps), so that a
   * run's end can wait for the runs it started: the tree's change set lands once, when all of it
   * is done, and a sub-agent never writes into a layer that already landed.
   */
  async adopt(layerId: string, members: readonly LayerMember[]): Promise<void> {
    const dir = join(this.folderOf(layerId), MEMBERS);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const member of members) {
      const name = createHash("sha256").update(member.runId).digest("hex").slice(0, 32);
      const temp = join(dir, `.${name}.${process.pid}.tmp`);
      await writeFile(temp, `${JSON.stringify({ runId: member.runId, parentRunId: member.parentRunId })}\n`, {
        mode: 0o600,
      });
      await rename(temp, join(dir, name));
    }
  }

  /** The runs {@link adopt} recorded for the tree (unreadable entries are skipped). */
  async members(layerId: string): Promise<LayerMember[]> {
    const dir = join(this.folderOf(layerId), MEMBERS);
    const names = await readdir(dir).catch(() => [] as string[]);
    const members: LayerMember[] = [];
    for (const name of names) {
      if (name.startsWith(".")) continue;
      try {
        const member = JSON.parse(await readFile(join(dir, name), "utf8")) as Partial<LayerMember>;
        if (typeof member.runId === "string" && typeof member.parentRunId === "string")
          members.push({ runId: member.runId, parentRunId: member.parentRunId });
      } catch {}
    }
    return members;
  }

  async #mount(layerId: string, runId: string, workspace: string): Promise<LayerNamespace> {
    const folder = this.folderOf(layerId);
    const lock = await lockLayer(folder, runId);
    try {
      const namespace = await this.#mountLocked(folder, layerId, runId, workspace);
      return {
        view: namespace.view,
        close() {
          namespace.close();
          lock.release();
        },
      };
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  async #mountLocked(
    folder: string,
    layerId: string,
    runId: string,
    workspace: string,
  ): Promise<LayerNamespace> {
    const upper = join(folder, "upper");
    const work = join(folder, "work");
    let record = await readRecord(folder);
    if (record !== undefined && record.workspace !== workspace) {
      throw new RunnerError(
        "WORKSPACE_LAYER_FAILED",
        `the layer of run ${runId} lies over ${record.workspace}, not ${workspace}; nothing was mounted`,
        { data: { runId, workspace } },
      );
    }
    if (record?.state === "kept") {
      // A retried run goes on where it stopped: its completed calls are replayed from the journal,
      // and what they wrote is in this layer.
      record = { ...record, state: "open", updatedAt: Date.now(), note: `reopened by run ${runId}` };
    } else if (record === undefined || record.state !== "open") {
      // A new layer, or a run going on after its layer landed or was discarded: start empty.
      await rm(upper, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
      await rm(join(folder, "landing.json"), { force: true });
      const now = Date.now();
      record = {
        v: 1,
        layerId,
        runId: record?.runId ?? runId,
        workspace,
        createdAt: record?.createdAt ?? now,
        updatedAt: now,
        state: "open",
      };
    }
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await chmod(folder, 0o700);
    await mkdir(work, { recursive: true, mode: 0o700 });
    const fresh = await mkdir(upper, { mode: 0o700 }).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === "EEXIST") return false;
        throw err;
      },
    );
    if (fresh) {
      // The layer's top folder is the workspace's folder in the merged view: same owner and mode.
      const lower = await stat(workspace);
      await chown(upper, lower.uid, lower.gid);
      await chmod(upper, lower.mode & 0o7777);
    }
    await writeRecord(folder, record);
    return openLayerNamespace({ workspace, upper, work }, this.options.programs);
  }

  /**
   * The run's change set against its workspace, or undefined when the run has no layer to land (none
   * made, or landed or discarded already). Read from the upper folder on the host, never through
   * the run's view.
   */
  async changes(layerId: string): Promise<LayerChanges | undefined> {
    return this.#exclusive(layerId, (folder) => this.#changes(folder));
  }

  async #changes(folder: string): Promise<LayerChanges | undefined> {
    const record = await readRecord(folder);
    if (record === undefined || record.state === "landed" || record.state === "discarded") return undefined;
    const upper = join(folder, "upper");
    if ((await lstat(upper).catch(() => undefined)) === undefined) return undefined;
    const set = await readChangeSet(upper, record.workspace);
    return { record, set, review: reviewChangeSet(set), digest: await changeSetDigest(set, upper) };
  }

  /** The change set as a person reviews it (file list and text diff, cut to `diffChars`). */
  async summary(layerId: string, changes: LayerChanges, diffChars?: number): Promise<ChangeSetSummary> {
    return summariseChangeSet(
      changes.set,
      changes.review,
      { upper: join(this.folderOf(layerId), "upper"), workspace: changes.record.workspace },
      diffChars,
    );
  }

  /**
   * Lands the run's change set in its workspace (exactly once: a landing record in the layer's
   * folder makes a repeat a no-op), then removes the upper and work folders and records the state.
   * `expectDigest`: the digest a person approved; a set that changed since is not landed.
   */
  async land(
    layerId: string,
    options: { note: string; expectDigest?: string; keepSpecialBits?: boolean },
  ): Promise<LandingReport & { changes: number }> {
    return this.#exclusive(layerId, (folder) => this.#land(folder, layerId, options));
  }

  async #land(
    folder: string,
    layerId: string,
    options: { note: string; expectDigest?: string; keepSpecialBits?: boolean },
  ): Promise<LandingReport & { changes: number }> {
    const record = await readRecord(folder);
    if (record === undefined) throw notFound(layerId);
    const runId = record.runId;
    if (record.state === "landed") return { outcome: "already", steps: 0, changes: 0 };
    if (record.state === "discarded") {
      throw new RunnerError(
        "WORKSPACE_LAYER_FAILED",
        `run ${runId}'s layer was discarded; there is nothing to land`,
        {
          data: { runId },
        },
      );
    }
    const upper = join(folder, "upper");
    let report: LandingReport = { outcome: "already", steps: 0 };
    let count = 0;
    if (!(await hasLanded(folder))) {
      const set = await readChangeSet(upper, record.workspace);
      if (
        options.expectDigest !== undefined &&
        (await changeSetDigest(set, upper)) !== options.expectDigest
      ) {
        throw new RunnerError(
          "WORKSPACE_LAYER_FAILED",
          `run ${runId}'s change set is not the one that was approved (it changed since); nothing was landed`,
          { data: { runId } },
        );
      }
      count = set.changes.length;
      report = await landChangeSet(set, {
        upper,
        workspace: record.workspace,
        recordDir: folder,
        ...(options.keepSpecialBits ? { keepSpecialBits: true } : {}),
      });
    }
    await this.#finish(folder, record, "landed", options.note);
    return { ...report, changes: count };
  }

  /**
   * Bytes the layer's upper folder takes on disk (allocated blocks, links not followed), counted up
   * to `limit`: the figure once it is over, undefined while it is within. Only what the run changed
   * is in the upper folder, so the walk is as long as the change set, not the workspace.
   */
  async overLimit(layerId: string, limit: number): Promise<number | undefined> {
    let used = 0;
    const walk = async (dir: string): Promise<boolean> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const path = join(dir, entry.name);
        const info = await lstat(path).catch(() => undefined);
        if (info === undefined) continue;
        used += info.blocks * 512;
        if (used > limit) return true;
        if (info.isDirectory() && (await walk(path))) return true;
      }
      return false;
    };
    return (await walk(join(this.folderOf(layerId), "upper"))) ? used : undefined;
  }

  /** Keeps the layer as it is (not landed) for `runs diff|land|discard`, with why. */
  async keep(layerId: string, note: string): Promise<void> {
    await this.#exclusive(layerId, async (folder) => {
      const record = await readRecord(folder);
      if (record === undefined || record.state !== "open") return;
      await writeRecord(folder, { ...record, state: "kept", updatedAt: Date.now(), note });
    });
  }

  /** Throws the layer's changes away: the real workspace stays as it is. */
  async discard(layerId: string, note: string): Promise<void> {
    await this.#exclusive(layerId, async (folder) => {
      const record = await readRecord(folder);
      if (record === undefined) throw notFound(layerId);
      await this.#finish(folder, record, "discarded", note);
    });
  }

  /** Removes the folders of layers that ended (kept, landed, discarded) more than `days` ago. */
  async sweep(days: number, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const record of await this.list()) {
      if (record.state === "open" || now - record.updatedAt < days * 24 * 3600 * 1000) continue;
      await rm(this.folderOf(record.layerId), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  async #finish(
    folder: string,
    record: LayerRecord,
    state: "landed" | "discarded",
    note: string,
  ): Promise<void> {
    // The record first: a crash after it leaves only folders the sweep removes.
    await writeRecord(folder, { ...record, state, updatedAt: Date.now(), note });
    await rm(join(folder, "upper"), { recursive: true, force: true });
    await rm(join(folder, "work"), { recursive: true, force: true });
  }

  /** Lets go of every open layer (the worker is stopping). */
  async close(): Promise<void> {
    for (const layerId of [...this.#open.keys()]) await this.#releaseLayer(layerId);
  }
}

function notFound(id: string): RunnerError {
  return new RunnerError("RUN_NOT_FOUND", `run ${id} has no layer in this data dir`, { data: { runId: id } });
}

async function readRecord(folder: string): Promise<LayerRecord | undefined> {
  const text = await readFile(join(folder, RECORD), "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as LayerRecord;
    if (
      record.v === 1 &&
      (LAYER_STATES as readonly string[]).includes(record.state) &&
      typeof record.runId === "string"
    )
      return record;
  } catch {}
  throw new RunnerError(
    "JOURNAL_CORRUPT",
    `the layer record ${join(folder, RECORD)} is not one; nothing was changed`,
  );
}

async function writeRecord(folder: string, record: LayerRecord): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temp = join(folder, `.${RECORD}.${process.pid}.tmp`);
  await writeFile(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  await rename(temp, join(folder, RECORD));
}
