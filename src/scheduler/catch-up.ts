import { assertNever } from "../shared/index.js";
import type { CatchUpPolicy } from "./schedule.js";

/** One tick the plan runs, and how it is recorded. */
export interface PlannedTick {
  tick: number;
  kind: "fired" | "caught-up";
}

/** What to do with the ticks that came due since a schedule's watermark. */
export interface TickPlan {
  /** Ticks to run, oldest first. */
  run: PlannedTick[];
  /** Ticks missed during downtime and not run. */
  missed: { count: number; oldest: number; newest: number; countIsLowerBound: boolean } | null;
  /** The newest tick considered: the new watermark (null when there were none). */
  through: number | null;
}

/** Input of {@link planTicks}. */
export interface PlanTicksInput {
  /** Ticks in (watermark, now], newest first (as CronTimetable.between returns them). */
  ticks: readonly number[];
  now: number;
  /** A tick more than this late (ms) was missed (the scheduler was down), not merely a bit late. */
  lateAfterMs: number;
  policy: CatchUpPolicy;
  /** With `all`: at most this many missed ticks run (the newest). */
  max: number;
  /** True when `ticks` was cut at the scan limit (there may be older missed ticks). */
  truncated: boolean;
}

/**
 * Applies the catch-up policy. On-time ticks always run. Missed ticks: `none` runs none, `latest` runs
 * the newest one unless an on-time tick already runs, `all` runs the newest `max`. Pure.
 */
export function planTicks(input: PlanTicksInput): TickPlan {
  const onTime = input.ticks.filter((t) => input.now - t <= input.lateAfterMs);
  const missed = input.ticks.filter((t) => input.now - t > input.lateAfterMs);
  let caughtUp: number[];
  switch (input.policy) {
    case "none":
      caughtUp = [];
      break;
    case "latest":
      caughtUp = onTime.length === 0 ? missed.slice(0, 1) : [];
      break;
    case "all":
      caughtUp = missed.slice(0, input.max);
      break;
    default:
      return assertNever(input.policy, "catch-up policy");
  }
  const run: PlannedTick[] = [
    ...caughtUp.map((tick) => ({ tick, kind: "caught-up" as const })),
    ...onTime.map((tick) => ({ tick, kind: "fired" as const })),
  ].sort((a, b) => a.tick - b.tick);
  const notRun = missed.slice(caughtUp.length);
  return {
    run,
    missed:
      notRun.length === 0
        ? null
        : {
            count: notRun.length,
            oldest: notRun[notRun.length - 1]!,
            newest: notRun[0]!,
            countIsLowerBound: input.truncated,
          },
    through: input.ticks[0] ?? null,
  };
}
