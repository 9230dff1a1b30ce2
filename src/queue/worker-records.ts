import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { processStartTime } from "../proc/index.js";

/**
 * One worker of this machine, kept on disk while it may hold jobs: its BullMQ worker id (the first
 * part of every job lock token it takes), its pid with that process's start time, the boot it ran
 * in and the host. A worker that finds such a record of a process that no longer exists knows that
 * every lock token of that id belongs to nobody, without waiting for the lock to lapse.
 */
interface WorkerRecord {
  readonly v: 1;
  readonly workerId: string;
  readonly pid: number;
  /** Start time of the process (field 22 of /proc/<pid>/stat, clock ticks since boot). */
  readonly start: string;
  /** /proc/sys/kernel/random/boot_id when the record was written: a reboot changes it. */
  readonly boot: string;
  readonly host: string;
}

function bootId(): string {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "";
  }
}

function isRecord(value: unknown): value is WorkerRecord {
  const r = value as Partial<WorkerRecord> | null;
  return (
    typeof r === "object" &&
    r !== null &&
    r.v === 1 &&
    typeof r.workerId === "string" &&
    /^[\w-]+$/.test(r.workerId) &&
    Number.isInteger(r.pid) &&
    typeof r.start === "string" &&
    typeof r.boot === "string" &&
    typeof r.host === "string"
  );
}

/** Writes `text` to `path` and makes it durable (file and directory fsynced): it must outlive a machine crash. */
function writeDurably(dir: string, path: string, text: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * The records of the workers that ran on one data dir (`<data dir>/workers/<worker id>.json`). A
 * record is proven gone when it was written on this host and its boot is over, or its pid is not
 * running, or runs a process with another start time (the pid was given to something else). A
 * record of another host, or of a live process, is never gone: its jobs are left to BullMQ's lock.
 */
export class WorkerRecords {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Records this process as the holder of `workerId`'s locks; written before it takes a job. Throws when it cannot. */
  add(workerId: string): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const record: WorkerRecord = {
      v: 1,
      workerId,
      pid: process.pid,
      start: processStartTime(process.pid) ?? "",
      boot: bootId(),
      host: hostname(),
    };
    writeDurably(this.#dir, join(this.#dir, `${workerId}.json`), JSON.stringify(record));
  }

  /** Drops a record: its worker closed (holds no lock) or its locks were taken back. */
  remove(workerId: string): void {
    try {
      unlinkSync(join(this.#dir, `${workerId}.json`));
    } catch {}
  }

  /** The worker ids whose process is proven gone (see the class). Unreadable records are dropped. */
  gone(): string[] {
    const ids: string[] = [];
    const boot = bootId();
    const host = hostname();
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return ids;
    }
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      let record: unknown;
      try {
        record = JSON.parse(readFileSync(join(this.#dir, name), "utf8"));
      } catch {
        record = undefined;
      }
      if (!isRecord(record) || name !== `${record.workerId}.json`) {
        this.#drop(name);
        continue;
      }
      if (record.host !== host) continue;
      const rebooted = record.boot !== "" && boot !== "" && record.boot !== boot;
      // Without a recorded start time only a reboot proves the process gone: its pid alone does not.
      const replaced = record.start !== "" && processStartTime(record.pid) !== record.start;
      if (rebooted || replaced) ids.push(record.workerId);
    }
    return ids;
  }

  #drop(name: string): void {
    try {
      unlinkSync(join(this.#dir, name));
    } catch {}
  }
}
