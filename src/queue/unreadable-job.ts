import { Job, type JobJson } from "bullmq";

/** The queue parameter of BullMQ's `Job.fromJSON` (its own type is not exported). */
type JobQueue = Parameters<typeof Job.fromJSON>[0];

/** How much of an unreadable `data` field is kept for the operator to see, characters. */
const RAW_SHOWN = 200;

/**
 * What a job's `data` holds in memory when its stored text is not JSON (a corrupt or hand-edited
 * record). BullMQ parses `data` while it reads a job, so a bad one used to throw out of every reader:
 * the worker never got the job (it stayed active and was picked up again after each stall), and
 * every listing that met it failed. Read as this instead, the job fails once with a reason, and
 * listings show it as unreadable beside the rest. A class, so no parsed payload can pass for it.
 */
export class UnreadableJobData {
  constructor(
    /** Why it does not parse (the JSON parser's message). */
    readonly reason: string,
    /** The start of the stored text. */
    readonly raw: string,
  ) {}

  /** One line for a job's failure reason and for listings. */
  describe(): string {
    return `the job's stored data is not JSON (${this.reason}); it starts ${JSON.stringify(this.raw)}`;
  }
}

/** True when a job's data is a stored text that did not parse (see {@link UnreadableJobData}). */
export function isUnreadableJobData(data: unknown): data is UnreadableJobData {
  return data instanceof UnreadableJobData;
}

/**
 * BullMQ's Job, read so that a `data` field that is not JSON does not throw: the job gets an
 * {@link UnreadableJobData} for data, and everything else (id, state, options, attempts) as stored.
 */
export class TolerantJob extends Job {
  static override fromJSON<T = unknown, R = unknown, N extends string = string>(
    queue: JobQueue,
    json: JobJson,
    jobId?: string,
  ): Job<T, R, N> {
    try {
      return Job.fromJSON<T, R, N>(queue, json, jobId);
    } catch (err) {
      const text = typeof json.data === "string" ? json.data : "";
      try {
        JSON.parse(text || "{}");
      } catch (parse) {
        const job = Job.fromJSON<T, R, N>(queue, { ...json, data: "null" }, jobId);
        job.data = new UnreadableJobData((parse as Error).message, text.slice(0, RAW_SHOWN)) as T;
        return job;
      }
      throw err; // something else of the record is broken: BullMQ's own error
    }
  }
}
