import type { AgentJobPayload } from "../queue/index.js";
import { assertNever } from "../shared/index.js";
import type { HistoryEntry, StoredSchedule } from "./records.js";
import {
  type AgentQueuePort,
  enqueueScheduledRun,
  enqueueScheduledRuns,
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

/** Ticks claimed and enqueued by {@link TickFirer.enqueueBatch}, not yet recorded. */
export interface EnqueuedBatch {
  readonly ticks: readonly { stored: StoredSchedule; tick: number }[];
  readonly now: number;
  /** Results so far: set for ticks someone else holds or dealt with. */
  readonly results: FireResult[];
  /** Indexes of the ticks this call claimed. */
  readonly mine: readonly number[];
  readonly decisions: ReadonlyMap<number, { outcome: TickOutcome; note?: string }>;
  /** Claimed ticks that failed (by index): not enqueued, not recorded; their claims lapse. */
  readonly failures: ReadonlyMap<number, unknown>;
}

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
    return (await this.fireBatch([{ stored, tick }], kind, now))[0]!;
  }

  /**
   * Fires many ticks (each of another schedule) with the same protocol as one, in a few round trips:
   * claim them all (one script: SET NX each) → the overlap policy (one pipelined count; only a
   * schedule with active or queued runs is looked at closer) → one `addBulk` of the runs → record
   * every outcome (one pipeline of the per-tick FINALIZE script). Results in the order of `ticks`.
   */
  async fireBatch(
    ticks: readonly { stored: StoredSchedule; tick: number }[],
    kind: "fired" | "caught-up",
    now: number,
  ): Promise<FireResult[]> {
    const batch = await this.enqueueBatch(ticks, kind, now);
    const results = await this.recordBatch(batch);
    // The others are recorded; a failed tick surfaces as the error it is (as one tick's fire did).
    const [failure] = batch.failures.values();
    if (batch.failures.size > 0) throw failure;
    return results;
  }

  /**
   * The first half of {@link fireBatch}: claim, overlap policy, enqueue. The claims stay `claimed`
   * until {@link recordBatch}; a caller firing many batches records them after all are enqueued, so
   * the recording of one batch does not delay the runs of the next (the claims' lease covers it).
   */
  async enqueueBatch(
    ticks: readonly { stored: StoredSchedule; tick: number }[],
    kind: "fired" | "caught-up",
    now: number,
  ): Promise<EnqueuedBatch> {
    const { store, owner } = this.#o;
    const results: FireResult[] = new Array(ticks.length);
    const claims = await store.claimTicks(
      ticks.map(({ stored, tick }) => ({ id: stored.schedule.id, tick })),
      owner,
      this.#o.claimLeaseMs,
      now,
    );
    const claimed: number[] = [];
    claims.forEach((claim, i) => {
      if (claim === null) claimed.push(i);
      else results[i] = claim.state === "claimed" ? "busy" : "already";
    });
    // A tick that cannot be decided or whose payload cannot be built fails alone, as with one tick:
    // it is not recorded, its claim lapses and a later pass tries again.
    const failures = new Map<number, unknown>();

    // The overlap policy: a schedule with no active run and no waiting tick fires without more reads.
    const checked = claimed.filter((i) => ticks[i]!.stored.schedule.overlap !== "allow");
    const counts = await store.runCounts(checked.map((i) => ticks[i]!.stored.schedule.id));
    const busy = new Set(
      checked.filter((_, j) => {
        const count = counts[j];
        return !count || count.active > 0 || count.queued > 0;
      }),
    );
    const decisions = new Map<number, { outcome: TickOutcome; note?: string }>();
    await Promise.all(
      claimed.map(async (i) => {
        try {
          decisions.set(
            i,
            busy.has(i) ? await this.#overlapDecision(ticks[i]!.stored, kind, now) : { outcome: kind },
          );
        } catch (err) {
          failures.set(i, err);
        }
      }),
    );

    const runs: { payload: AgentJobPayload; delayMs: number }[] = [];
    for (const i of claimed) {
      const outcome = decisions.get(i)?.outcome;
      if (outcome !== "fired" && outcome !== "caught-up") continue;
      const { stored, tick } = ticks[i]!;
      const schedule = stored.schedule;
      try {
        runs.push({
          payload: scheduledRunPayload(schedule, tick, scheduledRunId(schedule.id, tick), now),
          delayMs: jitterMs(schedule.id, tick, schedule.jitterSeconds),
        });
      } catch (err) {
        failures.set(i, err);
      }
    }
    await enqueueScheduledRuns(this.#o.agentQueue, runs);
    const mine = claimed.filter((i) => !failures.has(i));

    return { ticks, now, results, mine, decisions, failures };
  }

  /** The second half of {@link fireBatch}: records each claimed tick's outcome once. */
  async recordBatch(batch: EnqueuedBatch): Promise<FireResult[]> {
    const { store, owner } = this.#o;
    const { ticks, now, results, mine, decisions } = batch;
    const replies = await store.finalizeTicks(
      mine.map((i) => {
        const { stored, tick } = ticks[i]!;
        const { outcome, note } = decisions.get(i)!;
        const runId = scheduledRunId(stored.schedule.id, tick);
        const entry: HistoryEntry = {
          v: 1,
          kind: outcome,
          at: now,
          tick,
          ...(outcome === "fired" || outcome === "caught-up" ? { runId } : {}),
          ...(note ? { note } : {}),
        };
        return {
          id: stored.schedule.id,
          tick,
          owner,
          outcome,
          runId,
          entry,
          claimTtlMs: this.#o.claimTtlMs,
        };
      }),
    );
    mine.forEach((i, j) => {
      const recorded = replies[j]!;
      switch (recorded) {
        case "ok":
          results[i] = decisions.get(i)!.outcome;
          break;
        case "done":
          results[i] = "already";
          break;
        case "lost":
        case "gone":
          results[i] = recorded;
          break;
        default:
          assertNever(recorded, "finalize reply");
      }
    });
    return results;
  }

  /** The overlap policy's outcome for a claimed tick of a schedule that has active or queued runs. */
  async #overlapDecision(
    stored: StoredSchedule,
    kind: "fired" | "caught-up",
    now: number,
  ): Promise<{ outcome: TickOutcome; note?: string }> {
    const schedule = stored.schedule;
    switch (schedule.overlap) {
      case "allow":
        return { outcome: kind };
      case "skip":
        return (await this.liveActiveRuns(schedule.id, now)).length > 0
          ? { outcome: "skipped-overlap" }
          : { outcome: kind };
      case "queue": {
        const active = await this.liveActiveRuns(schedule.id, now);
        const waiting = (await this.#o.store.queuedTicks(schedule.id)).length;
        if (waiting >= MAX_QUEUED_TICKS) {
          return {
            outcome: "skipped-overlap",
            note: `the queue of ticks waiting for the active run is full (${MAX_QUEUED_TICKS})`,
          };
        }
        return active.length > 0 || waiting > 0 ? { outcome: "queued" } : { outcome: kind };
      }
      default:
        return assertNever(schedule.overlap, "overlap policy");
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
    });
  }
}
