/**
 * `execution.network_policy`, loosest first: allow < restricted (allow-listed hosts only) < deny.
 * Config merging picks the strictest any source sets; policy, the gate and the sandbox read this list.
 */
export const NETWORK_POLICIES = ["allow", "restricted", "deny"] as const;
export type NetworkPolicy = (typeof NETWORK_POLICIES)[number];
