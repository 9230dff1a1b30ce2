import { RunnerError, sha256Hex } from "../../shared/index.js";

/** Default key prefix (the config's `redis.key_prefix`). */
export const DEFAULT_APPROVALS_PREFIX = "echo";

/** Longest accepted id (run, job, trace, idempotency key, approver), in characters. */
export const MAX_APPROVAL_ID_LENGTH = 512;

/** Shape of an approval id: 32 lowercase hex characters (128 bits of a SHA-256). */
export const APPROVAL_ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The id of the approval request of one tool call. Derived, not random: a replay of the run reaches
 * the same call with the same idempotency key and finds the same request instead of asking again.
 */
export function approvalIdFor(runId: string, idempotencyKey: string): string {
  assertApprovalInput("run id", runId);
  assertApprovalInput("idempotency key", idempotencyKey);
  return sha256Hex(`echo-runner/approval/v1\u0000${runId}\u0000${idempotencyKey}`).slice(0, 32);
}

/** True when `value` has the shape of an approval id (checked before it becomes part of a key). */
export function isApprovalId(value: unknown): value is string {
  return typeof value === "string" && APPROVAL_ID_PATTERN.test(value);
}

/**
 * Every Redis key of the approvals module. All of them share the hash tag `{approvals}` so one Lua
 * script may touch a request, its indexes and its run's index atomically on a Redis Cluster too.
 * Approvals move at human speed, so one slot is not a bottleneck.
 */
export class ApprovalKeys {
  readonly base: string;

  constructor(prefix: string) {
    if (!/^[a-zA-Z0-9_:-]{1,64}$/.test(prefix) || prefix.endsWith(":")) {
      throw new RunnerError(
        "APPROVAL_INPUT_INVALID",
        `approvals key prefix must be 1-64 letters, digits, _ : - and not end with ":", got ${JSON.stringify(prefix)}`,
      );
    }
    this.base = `${prefix}:{approvals}:`;
  }

  /** Hash of one request: `req` JSON, status, decisions, token fields. */
  request(id: string): string {
    return `${this.base}req:${id}`;
  }
  /** Escalation of one request: claimed (a lease) while being sent, then `sent` (once per request). */
  escalation(id: string): string {
    return `${this.base}esc:${id}`;
  }
  /** Lease of the sender now mailing one request (a random owner token, expires on its own). */
  sendLease(id: string): string {
    return `${this.base}send:${id}`;
  }
  /** Capped list of fetches of one request's links. */
  fetches(id: string): string {
    return `${this.base}fetch:${id}`;
  }
  /** The request ids of one run: fields of a hash (a set for runs parked by earlier releases). */
  run(runId: string): string {
    return `${this.base}run:${runId}`;
  }
  /** Sorted set of pending ids by deadline. */
  get pending(): string {
    return `${this.base}pending`;
  }
  /** Sorted set of ids by reminder time (or reminder lease). */
  get remind(): string {
    return `${this.base}remind`;
  }
  /** Sorted set of ids whose notification is not yet delivered, by request time. */
  get unsent(): string {
    return `${this.base}unsent`;
  }
  /** Sorted set of every id by request time (for listing). */
  get all(): string {
    return `${this.base}all`;
  }
  /** Stream of final decisions (id, status, runId, jobId), for workers in other processes. */
  get events(): string {
    return `${this.base}events`;
  }
  /**
   * The events stream position every promoter has woken the runs of (a stream id): a promoter that
   * starts reads on from here, so a decision made while no worker ran still wakes its run.
   */
  get promoterPosition(): string {
    return `${this.base}promoter-position`;
  }
  /** The HMAC secret of page nonces, shared by every HTTP process. */
  get pageSecret(): string {
    return `${this.base}page-secret`;
  }
}

/** Checks an id that the store keeps or puts into a key: a non-empty string of bounded length. */
export function assertApprovalInput(what: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_APPROVAL_ID_LENGTH) {
    throw new RunnerError(
      "APPROVAL_INPUT_INVALID",
      `${what} must be a string of 1 to ${MAX_APPROVAL_ID_LENGTH} characters, got ${describe(value)}`,
      { data: { what } },
    );
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return value === null ? "null" : typeof value;
}
