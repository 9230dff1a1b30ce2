import { sanitizeText } from "../agent/index.js";
import type { Logger } from "../logging/index.js";
import { type AlertKind, type Clock, systemClock } from "../shared/index.js";
import type { Alert } from "./alert.js";
import type { AlertOutbox } from "./alert-outbox.js";

/** Options for {@link AlertReporter}. */
export interface AlertReporterOptions {
  outbox: AlertOutbox;
  /** `alerts.on`: the kinds reported; others are dropped here. */
  kinds: readonly AlertKind[];
  /** `alerts.schedule_failures`: a schedule's runs failing this many times in a row alert once. */
  scheduleFailures: number;
  /** Values never to put in an alert (API keys, SMTP password, webhook URLs), masked in details. */
  secrets: readonly string[];
  logger: Logger;
  clock?: Clock;
}

/** The run an alert is about. */
export interface AlertRun {
  runId: string;
  agent: string;
  scheduleId: string | null;
  owner: string | null;
}

/**
 * Turns what happened to runs and schedules into alerts in the outbox. Reporting never throws: a
 * failing outbox is logged (the run's own end is not made worse by its alert).
 */
export class AlertReporter {
  readonly #o: AlertReporterOptions;
  readonly #clock: Clock;

  constructor(options: AlertReporterOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** A run failed for good; with a schedule, its failure streak grows (and may alert). */
  async runFailed(run: AlertRun, code: string | null, message: string): Promise<void> {
    await this.#add("run_failed", `run_failed:${run.runId}`, run, code, message);
    if (run.scheduleId === null || !this.#o.kinds.includes("schedule_failing")) return;
    const streak = await this.#o.outbox.countFailure(run.scheduleId).catch((err: unknown) => {
      this.#o.logger.warn({ err: String(err) }, "counting a schedule's failures failed");
      return 0;
    });
    if (streak === this.#o.scheduleFailures) {
      await this.#add(
        "schedule_failing",
        `schedule_failing:${run.scheduleId}:${run.runId}`,
        run,
        code,
        `${streak} runs in a row failed (alerts.schedule_failures); the last: ${message}`,
      );
    }
  }

  /** A run ended well: its schedule's failure streak starts again. */
  async runSucceeded(scheduleId: string | null): Promise<void> {
    if (scheduleId === null) return;
    await this.#o.outbox.resetStreak(scheduleId).catch(() => undefined);
  }

  /** A parked call's approval expired, so the run was told the call is denied. */
  async callExpired(run: AlertRun, approvalId: string, tool: string): Promise<void> {
    await this.#add(
      "call_expired",
      `call_expired:${approvalId}`,
      run,
      null,
      `no approver decided on the ${tool} call before its deadline, so it was denied (approval ${approvalId})`,
    );
  }

  /** A schedule's firing was missed (the scheduler was down) and its catch-up policy did not run it. */
  async scheduleMissed(
    schedule: { id: string; agent: string; owner: string | null },
    missed: { count: number; newest: number },
    note: string,
  ): Promise<void> {
    await this.#add(
      "schedule_missed",
      `schedule_missed:${schedule.id}:${missed.newest}`,
      { runId: "", agent: schedule.agent, scheduleId: schedule.id, owner: schedule.owner },
      null,
      note,
    );
  }

  async #add(kind: AlertKind, id: string, run: AlertRun, code: string | null, detail: string): Promise<void> {
    if (!this.#o.kinds.includes(kind)) return;
    const clean = sanitizeText(detail, this.#o.secrets);
    const alert: Alert = {
      v: 1,
      id: id.slice(0, 500),
      kind,
      at: Math.floor(this.#clock.now()),
      runId: run.runId === "" ? null : run.runId.slice(0, 200),
      agent: run.agent.slice(0, 200),
      scheduleId: run.scheduleId,
      owner: run.owner,
      code: code === null ? null : code.slice(0, 100),
      detail: clean.length > 2000 ? `${clean.slice(0, 1999)}…` : clean,
    };
    await this.#o.outbox.add(alert).catch((err: unknown) => {
      this.#o.logger.warn({ alert: alert.id, err: String(err) }, "storing an alert failed");
    });
  }
}
