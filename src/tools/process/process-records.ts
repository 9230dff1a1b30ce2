import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTime } from "../../proc/index.js";
import { isAlive, signalGroup } from "./process-group.js";

/**
 * One process group a worker started, kept on disk while it runs: if the worker and its reaper
 * both die (an OOM kill of the two, a kill of every process the service had but those detached), the
 * next worker on the same data dir finds the record and ends the group. Start times (from
 * /proc/<pid>/stat) tell a live group from a pid the kernel has since given to something else.
 */
interface ProcessRecord {
  readonly v: 1;
  readonly runId: string;
  readonly pgid: number;
  /** The group leader's start time, in clock ticks since boot. */
  readonly start: string;
  /** The worker that started it, and that worker's start time. */
  readonly owner: number;
  readonly ownerStart: string;
}

function isRecord(value: unknown): value is ProcessRecord {
  const r = value as Partial<ProcessRecord> | null;
  return (
    typeof r === "object" &&
    r !== null &&
    r.v === 1 &&
    typeof r.runId === "string" &&
    Number.isInteger(r.pgid) &&
    (r.pgid as number) > 1 &&
    typeof r.start === "string" &&
    Number.isInteger(r.owner) &&
    typeof r.ownerStart === "string"
  );
}

/** What {@link ProcessRecords.reapOrphans} ended. */
export interface ReapReport {
  /** Process groups killed: their worker is gone and their leader still ran. */
  readonly reaped: number;
  /** The runs those groups belonged to. */
  readonly runs: readonly string[];
}

/** The records of one data dir's process groups (`<data dir>/processes/<pgid>.json`). */
export class ProcessRecords {
  readonly #dir: string;
  readonly #ownerStart: string;

  constructor(dir: string) {
    this.#dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.#ownerStart = processStartTime(process.pid) ?? "";
  }

  /** Records a group this worker just started. */
  add(runId: string, pgid: number): void {
    const start = processStartTime(pgid);
    if (start === undefined) return;
    const record: ProcessRecord = {
      v: 1,
      runId,
      pgid,
      start,
      owner: process.pid,
      ownerStart: this.#ownerStart,
    };
    writeFileSync(join(this.#dir, `${pgid}.json`), JSON.stringify(record), { mode: 0o600 });
  }

  /** Forgets a group that has ended. */
  remove(pgid: number): void {
    try {
      unlinkSync(join(this.#dir, `${pgid}.json`));
    } catch {}
  }

  /**
   * Ends every recorded group whose worker is gone (no process with its pid and start time) while
   * the group's leader still runs with its recorded start time; drops the records of groups that
   * have ended, and of unreadable records. Groups of live workers are left alone.
   */
  reapOrphans(): ReapReport {
    let reaped = 0;
    const runs = new Set<string>();
    for (const name of readdirSync(this.#dir)) {
      if (!name.endsWith(".json")) continue;
      const path = join(this.#dir, name);
      let record: unknown;
      try {
        record = JSON.parse(readFileSync(path, "utf8"));
      } catch {
        record = undefined;
      }
      if (isRecord(record)) {
        const ownerLives = isAlive(record.owner) && processStartTime(record.owner) === record.ownerStart;
        if (ownerLives) continue;
        if (processStartTime(record.pgid) === record.start && signalGroup(record.pgid, "SIGKILL")) {
          reaped++;
          runs.add(record.runId);
        }
      }
      try {
        unlinkSync(path);
      } catch {}
    }
    return { reaped, runs: [...runs] };
  }
}
