import type { Logger } from "../logging/index.js";
import { type Clock, isRunnerError, randomId, systemClock } from "../shared/index.js";
import { planTicks } from "./catch-up.js";
import {
  type ConfigScheduleEntry,
  type ReconcileReport,
  reconcileConfigSchedules,
  type SkippedSchedule,
} from "./config-reconcile.js";
import { timetableFor } from "./cron-timetable.js";
import { LeaderLock } from "./leader-lock.js";
import type { HistoryEntry, StoredSchedule } from "./records.js";
import type { AgentQueuePort } from "./run-job.js";
import type { Schedule } from "./schedule.js";
import type { ScheduleStore } from "./schedule-store.js";
import { type EnqueuedBatch, type FireResult, TickFirer } from "./tick-firer.js";

/** Options of {@link Scheduler}. Durations in ms. */
export interface SchedulerOptions {
  store: ScheduleStore;
  agentQueue: AgentQueuePort;
  clock?: Clock;
  /** Identity of this process in the lock and in claims. Default: a random id. */
  owner?: string;
  /** Config schedules, reconciled each time this process becomes leader. Omitted = no reconcile. */
  configSchedules?: readonly ConfigScheduleEntry[];
  /** Lease of the leader lock (renewed every pass). Default 15,000. */
  lockLeaseMs?: number;
  /** Pause between passes of {@link Scheduler.start}'s loop. Default 500. */
  pollMs?: number;
  /** A tick later than this was missed (downtime) and goes by the catch-up policy. Default 60,000. */
  lateAfterMs?: number;
  /** Claim lease of an in-flight tick. Default 60,000. */
  claimLeaseMs?: number;
  /** How long a fired tick's claim is kept. Default 7 days. */
  claimTtlMs?: number;
  /** Schedules caught up and rescheduled in parallel (phase 2). Default 64. */
  concurrency?: number;
  /** On-time ticks fired per batch (one claim script, one addBulk, one pipeline). Default 250. */
  batchSize?: number;
  /** Batches of on-time ticks fired in parallel. Default 4. */
  parallelBatches?: number;
  /** Schedules due within this many ms are read and decoded ahead of their tick. Default 5,000. */
  prefetchMs?: number;
  /** Most due schedules one pass takes. Default 20,000. */
  maxDuePerPass?: number;
  logger?: Logger;
  /** Called with the report of each pass {@link start} runs (metrics); a failure is logged. */
  onPass?: (report: PassReport) => Promise<void> | void;
  /**
   * Called when ticks of a schedule were missed (downtime) and its catch-up policy did not run them
   * (alerts' `schedule_missed`), after the history records it; a failure is logged.
   */
  onMissed?: (
    schedule: Schedule,
    missed: { count: number; oldest: number; newest: number },
    note: string,
  ) => Promise<void> | void;
}

/** What one pass did. */
export interface PassReport {
  leader: boolean;
  reconciled?: ReconcileReport;
  /** Count of each tick result (fired, caught-up, skipped-overlap, queued, already, busy, lost, gone). */
  results: Partial<Record<FireResult, number>>;
  /** Missed ticks not run (catch-up policy). */
  missed: number;
  released: number;
  errors: number;
}

/** Ticks one schedule's catch-up scan looks at (newest first). */
const SCAN_LIMIT = 1000;

/**
 * The firing loop. Each pass (leader only): renew or take the lock, reconcile config on becoming
 * leader, fire every due schedule's on-time tick first (no cron arithmetic on that path), then plan
 * catch-up and set each schedule's next tick, then release queued ticks. Tests call
 * {@link runDue} with the time; {@link start} runs it on a timer with the injected clock.
 */
export class Scheduler {
  readonly owner: string;
  readonly #store: ScheduleStore;
  readonly #clock: Clock;
  readonly #lock: LeaderLock;
  readonly #firer: TickFirer;
  readonly #o: Required<
    Omit<SchedulerOptions, "configSchedules" | "logger" | "owner" | "clock" | "onPass" | "onMissed">
  >;
  readonly #onPass: SchedulerOptions["onPass"];
  readonly #onMissed: SchedulerOptions["onMissed"];
  readonly #config: readonly ConfigScheduleEntry[] | undefined;
  readonly #logger: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;
  /** Config must be reconciled before this process fires: on becoming leader, and after a failure. */
  #needsReconcile = true;
  /** The skipped config schedules last logged (JSON), so each change is logged once. */
  #lastSkipped = "[]";
  /** Schedules whose processing failed, with the message last logged for each. */
  readonly #failing = new Map<string, string>();
  /** Schedules due up to this instant were read ahead (see #prefetch). */
  #prefetchedThrough = 0;

  constructor(options: SchedulerOptions) {
    this.owner = options.owner ?? `scheduler-${randomId()}`;
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    this.#config = options.configSchedules;
    this.#logger = options.logger;
    this.#onPass = options.onPass;
    this.#onMissed = options.onMissed;
    this.#o = {
      store: options.store,
      agentQueue: options.agentQueue,
      lockLeaseMs: options.lockLeaseMs ?? 15_000,
      pollMs: options.pollMs ?? 500,
      lateAfterMs: options.lateAfterMs ?? 60_000,
      claimLeaseMs: options.claimLeaseMs ?? 60_000,
      claimTtlMs: options.claimTtlMs ?? 7 * 86_400_000,
      concurrency: options.concurrency ?? 64,
      batchSize: options.batchSize ?? 250,
      parallelBatches: options.parallelBatches ?? 4,
      prefetchMs: options.prefetchMs ?? 5000,
      maxDuePerPass: options.maxDuePerPass ?? 20_000,
    };
    this.#lock = new LeaderLock(this.#store, this.owner, this.#o.lockLeaseMs);
    this.#firer = new TickFirer({
      store: this.#store,
      agentQueue: options.agentQueue,
      owner: this.owner,
      claimLeaseMs: this.#o.claimLeaseMs,
      claimTtlMs: this.#o.claimTtlMs,
    });
  }

  get isLeader(): boolean {
    return this.#lock.held;
  }

  /** One pass at `now`. Does nothing but report `leader: false` when another process leads. */
  async runDue(now = this.#clock.now()): Promise<PassReport> {
    const report: PassReport = { leader: false, results: {}, missed: 0, released: 0, errors: 0 };
    const leadership = await this.#lock.ensure();
    if (leadership.lost) this.#logger?.warn({ owner: this.owner }, "scheduler lost the leader lock");
    if (!leadership.held) return report;
    report.leader = true;
    if (leadership.acquired) this.#needsReconcile = true;
    if (this.#needsReconcile && this.#config) {
      // A failure throws out of the pass before anything fires, and the next pass tries again.
      report.reconciled = await reconcileConfigSchedules(this.#store, this.#config, now);
      const { skipped, damaged, ...changes } = report.reconciled;
      this.#logger?.info(
        { ...changes, skipped: skipped.map((s) => s.id), damaged: damaged.map((d) => d.id) },
        "config schedules reconciled",
      );
      this.#reportSkipped(skipped);
      for (const d of damaged) this.#logFailing(d.id, d.message, { scheduleId: d.id, error: d.message });
    }
    this.#needsReconcile = false;

    const due = await this.#store.due(now, this.#o.maxDuePerPass);
    // A due schedule that cannot be read is logged and left (it never fires); the others fire.
    const { found: storedList, damaged } = await this.#store.readMany(due.map((d) => d.id));
    for (const d of damaged) {
      report.errors++;
      this.#logFailing(d.id, d.message, { scheduleId: d.id, error: d.message });
    }
    const blocked = new Set<string>();
    const count = (result: FireResult) => {
      report.results[result] = (report.results[result] ?? 0) + 1;
      if (result === "busy" || result === "lost" || result === "gone") return false;
      return true;
    };

    // Phase 1: on-time ticks, straight from the due index, in batches (a claim script, an addBulk
    // and a pipeline per batch). Nothing else runs before them.
    const onTime: { stored: StoredSchedule; tick: number }[] = [];
    due.forEach(({ tick }, i) => {
      const stored = storedList[i];
      if (stored?.schedule.enabled && now - tick <= this.#o.lateAfterMs) onTime.push({ stored, tick });
    });
    const batches: (typeof onTime)[] = [];
    for (let i = 0; i < onTime.length; i += this.#o.batchSize) {
      batches.push(onTime.slice(i, i + this.#o.batchSize));
    }
    const failed = (batch: (typeof batches)[number], err: unknown) => {
      report.errors += batch.length;
      for (const { stored } of batch) blocked.add(stored.schedule.id);
      this.#logger?.error({ err, schedules: batch.length }, "scheduler could not fire a batch of ticks");
    };
    // Every batch is enqueued before any is recorded: recording is off the runs' path.
    const enqueued: (EnqueuedBatch | undefined)[] = new Array(batches.length);
    await inParallel(this.#o.parallelBatches, batches.length, async (b) => {
      try {
        enqueued[b] = await this.#firer.enqueueBatch(batches[b]!, "fired", now);
      } catch (err) {
        failed(batches[b]!, err);
      }
    });
    await inParallel(this.#o.parallelBatches, batches.length, async (b) => {
      const batch = enqueued[b];
      if (!batch) return;
      try {
        const results = await this.#firer.recordBatch(batch);
        batches[b]!.forEach(({ stored }, i) => {
          const failure = batch.failures.get(i);
          if (batch.failures.has(i)) {
            report.errors++;
            blocked.add(stored.schedule.id);
            this.#logger?.error(
              { err: failure, scheduleId: stored.schedule.id },
              "scheduler could not fire a tick",
            );
          } else if (!count(results[i]!)) blocked.add(stored.schedule.id);
        });
      } catch (err) {
        failed(batches[b]!, err);
      }
    });
    if (!(await this.#stillLeader())) return report;

    // Phase 2: ticks missed or still due after phase 1, then the next tick of each schedule.
    const throughs = await this.#store.throughMany(due.map((d) => d.id));
    await inParallel(this.#o.concurrency, due.length, async (i) => {
      const stored = storedList[i];
      if (!stored?.schedule.enabled || blocked.has(stored.schedule.id)) return;
      await this.#guard(report, stored.schedule.id, () =>
        this.#catchUp(stored, throughs[i] ?? stored.createdAt, now, report, count),
      );
    });
    if (!(await this.#stillLeader())) return report;

    // Phase 3: queued ticks whose schedule has no active run any more.
    for (const id of await this.#store.schedulesWithQueuedTicks()) {
      await this.#guard(report, id, async () => {
        const stored = await this.#store.get(id);
        if (stored && (await this.#firer.releaseQueued(stored, now))) report.released++;
        return true;
      });
    }

    await this.#prefetch(now);
    return report;
  }

  /**
   * Reads and decodes the schedules due within the next `prefetchMs` once, ahead of their tick, so
   * the pass that fires them finds them decoded (the store keeps them by stored text) and spends the
   * tick on claims and enqueues only. An optimisation: a failure is logged and changes nothing.
   */
  async #prefetch(now: number): Promise<void> {
    const until = now + this.#o.prefetchMs;
    if (until <= this.#prefetchedThrough) return;
    try {
      const ids = await this.#store.dueBetween(
        Math.max(now, this.#prefetchedThrough),
        until,
        this.#o.maxDuePerPass,
      );
      await this.#store.readMany(ids);
      this.#prefetchedThrough = until;
    } catch (err) {
      this.#logger?.warn({ err }, "scheduler could not read the schedules due next ahead of time");
    }
  }

  /** Runs passes until {@link stop}. Errors of a pass are logged; the loop goes on. */
  start(): void {
    this.#stopped = false;
    const loop = async () => {
      if (this.#stopped) return;
      this.#running = this.runDue(this.#clock.now())
        .then((report) => this.#onPass?.(report))
        .catch((err: unknown) => {
          this.#logger?.error({ err }, "scheduler pass failed");
        });
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(loop, this.#o.pollMs);
    };
    void loop();
  }

  /** Stops the loop, waits for the pass in progress and gives up the lock. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#running;
    await this.#lock.release();
  }

  async #catchUp(
    stored: StoredSchedule,
    through: number,
    now: number,
    report: PassReport,
    count: (result: FireResult) => boolean,
  ): Promise<boolean> {
    const schedule = stored.schedule;
    const table = timetableFor(schedule.cron, schedule.timezone);
    const ticks = table.between(through, now, SCAN_LIMIT + 1);
    const plan = planTicks({
      ticks: ticks.slice(0, SCAN_LIMIT),
      now,
      lateAfterMs: this.#o.lateAfterMs,
      policy: schedule.catchUp,
      max: schedule.catchUpMax,
      truncated: ticks.length > SCAN_LIMIT,
    });
    for (const { tick, kind } of plan.run) {
      if (!count(await this.#firer.fire(stored, tick, kind, now))) return false;
    }
    const history: HistoryEntry[] = [];
    const missedNote = plan.missed
      ? `${plan.missed.countIsLowerBound ? "at least " : ""}${plan.missed.count} tick(s) from ${new Date(plan.missed.oldest).toISOString()} not run (catch-up ${schedule.catchUp})`
      : "";
    if (plan.missed) {
      report.missed += plan.missed.count;
      history.push({
        v: 1,
        kind: "missed",
        at: now,
        tick: plan.missed.newest,
        count: plan.missed.count,
        note: missedNote,
      });
    }
    const newThrough = Math.max(through, plan.through ?? through);
    await this.#store.advance(
      schedule.id,
      stored.rev,
      newThrough,
      table.next(Math.max(newThrough, now)),
      history,
    );
    if (plan.missed) {
      const missed = plan.missed;
      await Promise.resolve()
        .then(() => this.#onMissed?.(schedule, missed, missedNote))
        .catch((err: unknown) =>
          this.#logger?.warn({ scheduleId: schedule.id, err: String(err) }, "reporting missed ticks failed"),
        );
    }
    return true;
  }

  /** Logs the config schedules skipped by a reconcile, once per change of the list. */
  #reportSkipped(skipped: readonly SkippedSchedule[]): void {
    const key = JSON.stringify(skipped);
    if (key === this.#lastSkipped) return;
    this.#lastSkipped = key;
    for (const s of skipped) {
      this.#logger?.warn(
        { scheduleId: s.id, index: s.index, field: s.field },
        `config schedule schedules[${s.index}] (id "${s.id}") skipped, the others run: ${s.message}`,
      );
    }
  }

  async #guard(report: PassReport, id: string, work: () => Promise<boolean>): Promise<boolean> {
    try {
      const done = await work();
      this.#failing.delete(id);
      return done;
    } catch (err) {
      report.errors++;
      // An invalid schedule is a message; anything else keeps its stack.
      const message = err instanceof Error ? err.message : String(err);
      this.#logFailing(
        id,
        message,
        isRunnerError(err, "SCHEDULE_INVALID") ? { scheduleId: id, error: message } : { err, scheduleId: id },
      );
      return false;
    }
  }

  /**
   * Logs a schedule that could not be processed once per schedule and message, not on every pass:
   * an invalid stored schedule fails the same way every half second.
   */
  #logFailing(id: string, message: string, fields: Record<string, unknown>): void {
    if (this.#failing.get(id) === message) return;
    this.#failing.set(id, message);
    this.#logger?.error(
      fields,
      "scheduler could not process a schedule; the others go on (logged again when the error changes)",
    );
  }

  async #stillLeader(): Promise<boolean> {
    const state = await this.#lock.ensure();
    if (!state.held || state.acquired) {
      this.#logger?.warn({ owner: this.owner }, "scheduler lost the leader lock during a pass; stopping it");
      return false;
    }
    return true;
  }
}

async function inParallel(
  concurrency: number,
  total: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}
