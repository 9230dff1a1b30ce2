import { assertNever } from "../shared/index.js";
import type { HistoryEntry, StoredSchedule } from "./records.js";
import {
  type AgentQueuePort,
  enqueueScheduledRun,
  jitterMs,
  scheduledRunId,
  scheduledRunPayload,
} from "./run-job.js";
import type { ScheduleStore, TickOutcome } from "./schedule-store.js";

/** Most ticks that may wait behind an active run (overlap `queue`); later ones are skipped. */
export const MAX_QUEUED_TICKS = 50;

/**
 * What became of one tick: an outcome this call recorded, `already` (someone recorded it before),
 * `busy` (another process holds its claim and is firing it) or `lost` (our claim expired before we
 * recorded it; whoever claims it next finishes the job, and the deterministic job id stops a second
 * enqueue).
 */
export type FireResult = TickOutcome | "already" | "busy" | "lost" | "gone";

/** Options of {@link TickFirer}. */
export interface TickFirerOptions {
  store: ScheduleStore;
  agentQueue: AgentQueuePort;
  /** Identity of this process in claims. */
  owner: string;
  /** How long a claim protects an in-flight firing before another process may take the tick (ms). */
  claimLeaseMs: number;
  /** How long a recorded claim is kept, so the tick is never fired again (ms). */
  claimTtlMs: number;
  /** Finished agent jobs BullMQ keeps (config retention.finished_jobs). */
  keepFinished: number;
}

/**
 * Fires single ticks: claim `sched:<id>:<instant>` (SET NX), apply the overlap policy, enqueue the
 * `agent` job with a deterministic id, record the outcome once. Used by the Scheduler loop; two
 * processes calling it for the same tick enqueue one job and record one outcome.
 */
export class TickFirer {
  readonly #o: TickFirerOptions;

  constructor(options: TickFirerOptions) {
    this.#o = options;
  }

  /** Fires `tick` of a schedule as `kind` (on time, or caught up after downtime). */
  async fire(
    stored: StoredSchedule,
    tick: number,
    kind: "fired" | "caught-up",
    now: number,
  ): Promise<FireResult> {
    const { store, owner } = this.#o;
    const schedule = stored.schedule;
    const existing = await store.claimTick(schedule.id, tick, owner, this.#o.claimLeaseMs, now);
    if (existing) return existing.state === "claimed" ? "busy" : "already";

    let outcome: TickOutcome = kind;
    let note: string | undefined;
    switch (schedule.overlap) {
      case "allow":
        break;
      case "skip":
        if ((await this.liveActiveRuns(schedule.id, now)).length > 0) outcome = "skipped-overlap";
        break;
      case "queue": {
        const active = await this.liveActiveRuns(schedule.id, now);
        const waiting = (await store.queuedTicks(schedule.id)).length;
        if (waiting >= MAX_QUEUED_TICKS) {
          outcome = "skipped-overlap";
          note = `the queue of ticks waiting for the active run is full (${MAX_QUEUED_TICKS})`;
        } else if (active.length > 0 || waiting > 0) outcome = "queued";
        break;
      }
      default:
        return assertNever(schedule.overlap, "overlap policy");
    }

    const runId = scheduledRunId(schedule.id, tick);
    if (outcome === "fired" || outcome === "caught-up") await this.#enqueue(stored, tick, runId, now);
    const entry: HistoryEntry = {
      v: 1,
      kind: outcome,
      at: now,
      tick,
      ...(outcome === "fired" || outcome === "caught-up" ? { runId } : {}),
      ...(note ? { note } : {}),
    };
    const recorded = await store.finalizeTick({
      id: schedule.id,
      tick,
      owner,
      outcome,
      runId,
      entry,
      claimTtlMs: this.#o.claimTtlMs,
    });
    switch (recorded) {
      case "ok":
        return outcome;
      case "done":
        return "already";
      case "lost":
      case "gone":
        return recorded;
      default:
        return assertNever(recorded, "finalize reply");
    }
  }

  /**
   * Enqueues the oldest queued tick of a schedule when none of its runs is active. Returns the run id
   * it released, or null.
   */
  async releaseQueued(stored: StoredSchedule, now: number): Promise<string | null> {
    const { store } = this.#o;
    const id = stored.schedule.id;
    const [tick] = await store.queuedTicks(id);
    if (tick === undefined) return null;
    if ((await this.liveActiveRuns(id, now)).length > 0) return null;
    const runId = scheduledRunId(id, tick);
    await this.#enqueue(stored, tick, runId, now);
    const released = await store.releaseQueued(id, tick, runId, {
      v: 1,
      kind: "released",
      at: now,
      tick,
      runId,
    });
    return released ? runId : null;
  }

  /**
   * The active runs of a schedule, after dropping those whose job has finished (completed, failed
   * for good, or removed) although nobody called markScheduleRunFinished — a worker may die first.
   */
  async liveActiveRuns(id: string, now: number): Promise<string[]> {
    const { store, agentQueue } = this.#o;
    const live: string[] = [];
    for (const runId of (await store.activeRuns(id)).keys()) {
      const state = await agentQueue.getJobState(runId);
      if (state === "completed" || state === "failed" || state === "unknown") {
        await store.finishRun(id, runId, now, {
          v: 1,
          kind: "finished",
          at: now,
          runId,
          note: `job found ${state} by the scheduler`,
        });
      } else live.push(runId);
    }
    return live;
  }

  async #enqueue(stored: StoredSchedule, tick: number, runId: string, now: number): Promise<void> {
    const schedule = stored.schedule;
    await enqueueScheduledRun(this.#o.agentQueue, scheduledRunPayload(schedule, tick, runId, now), {
      delayMs: jitterMs(schedule.id, tick, schedule.jitterSeconds),
      keepFinished: this.#o.keepFinished,
    });
  }
}
