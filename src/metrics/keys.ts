import { RunnerError } from "../shared/index.js";
import type { CounterFamily } from "./families.js";

/**
 * Redis keys of the metrics. All share the hash tag `{metrics}` so a script may touch a dedupe key
 * and a counter (or the fold cursor and the histogram) atomically on a Redis Cluster too. The parked
 * set lives in the BullMQ slot instead, because it is intersected with the queue's delayed set.
 */
export class MetricsKeys {
  readonly base: string;
  readonly #bullPrefix: string;

  constructor(keyPrefix: string) {
    if (!/^[a-zA-Z0-9_:-]{1,64}$/.test(keyPrefix) || keyPrefix.endsWith(":")) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `metrics key prefix must be 1-64 letters, digits, _ : - and not end with ":", got ${JSON.stringify(keyPrefix)}`,
      );
    }
    this.base = `${keyPrefix}:{metrics}:`;
    this.#bullPrefix = `{${keyPrefix}}`;
  }

  /** Hash of one counter family: field = JSON array of label values, value = count. */
  counter(family: CounterFamily): string {
    return `${this.base}c:${family}`;
  }

  /** Marks a run's final outcome as counted (expires), so a re-run after a crash is not counted twice. */
  seenRun(runId: string): string {
    return `${this.base}seen:run:${runId}`;
  }

  /**
   * The decisions of a run counted by the release before the per-day sets (hash: `<key>:<verdict>:<step>` or
   * `[key, verdict, step]` → 1; expires). Still read, no longer written.
   */
  seenDecisions(runId: string): string {
    return `${this.base}seen:decisions:${runId}`;
  }

  /**
   * The decisions counted on UTC day `day` (days since the epoch) in `shard` (two hex digits) of
   * every run, as integer members ({@link decisionSeenMember}): a set expiring DECISION_SEEN_DAYS
   * days after the day ends. Sets per day rather than a hash per run: a per-run key cost its own key,
   * hash and expiry entries (~230 bytes per parked run). Sharded so that a shard stays an intset on a
   * busy day (8 bytes a member) and an expiring key is freed in one go.
   */
  seenDecisionsIn(day: number, shard: string): string {
    return `${this.base}seen:decisions:i:${day}:${shard}`;
  }

  /**
   * The decisions counted on UTC day `day` in the earlier shape: 22-character
   * base64url members, in the set of their first character (~76 bytes a member). Still read, no
   * longer written.
   */
  seenDecisionsOn(day: number, shard: string): string {
    return `${this.base}seen:decisions:d:${day}:${shard}`;
  }

  /** Marks a run's usage as counted (expires), so a run finished again after a crash adds nothing. */
  seenUsage(runId: string): string {
    return `${this.base}seen:usage:${runId}`;
  }

  /** Histogram of approval waits: fields `[status,"b",le]`, `[status,"sum"]`, `[status,"count"]`. */
  get approvalWait(): string {
    return `${this.base}h:approval_wait`;
  }

  /** Last approvals event folded into the histogram. */
  get approvalWaitCursor(): string {
    return `${this.base}cursor:approval_wait`;
  }

  /** Jobs of `queue` parked by the worker (score: wake-up time), in the queue's slot. */
  parked(queue: string): string {
    return `${this.#bullPrefix}:runner-metrics:parked:${queue}`;
  }
}
