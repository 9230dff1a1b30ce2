/**
 * The closed sets a schedule is configured with, here because both the config schema and the
 * scheduler read them (and neither may import the other).
 */

/** What happens to a tick while the previous run of the same schedule is still active. */
export const OVERLAP_POLICIES = ["skip", "queue", "allow"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** Which ticks missed during downtime run when the scheduler is back. */
export const CATCH_UP_POLICIES = ["none", "latest", "all"] as const;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];
