/**
 * What happens to an in-doubt call of a tool that may not simply be re-run (config
 * `execution.in_doubt_policy`, read by the journal): `park` makes it a human decision ("in doubt: did
 * it run?"), `fail` fails the run.
 */
export const IN_DOUBT_POLICIES = ["park", "fail"] as const;
export type InDoubtPolicy = (typeof IN_DOUBT_POLICIES)[number];
