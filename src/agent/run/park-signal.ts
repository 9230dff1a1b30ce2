import type { ApprovalPort } from "./ports.js";

/**
 * Thrown inside a run when it must wait without holding a worker: for a person's decision, or for
 * another worker's live claim to lapse. The worker boundary turns it into BullMQ's moveToDelayed +
 * DelayedError; the job replays from its journal when it wakes.
 */
export class ParkSignal extends Error {
  constructor(
    /** When to wake up (ms since the epoch). */
    readonly wakeAt: number,
    readonly why: string,
    /**
     * Whether what the run waits for is already there (a child's end, a person's decision). Asked
     * once more after the job is delayed: a wake-up that landed while the run was still parking found
     * no delayed job to promote and is lost, so without this the run would sleep until `wakeAt`.
     */
    readonly ready?: () => Promise<boolean>,
  ) {
    super(`run parked until ${new Date(wakeAt).toISOString()}: ${why}`);
    this.name = new.target.name;
  }
}

/** A {@link ParkSignal} `ready` check: the request for this call has been decided (or withdrawn). */
export function approvalAnswered(
  approvals: ApprovalPort,
  call: Parameters<ApprovalPort["lookup"]>[0],
): () => Promise<boolean> {
  return async () => {
    const { status } = await approvals.lookup(call);
    return status !== "pending" && status !== "none";
  };
}
