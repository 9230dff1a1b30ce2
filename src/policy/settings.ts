/**
 * Closed sets of the security-ordered settings, each written once and ordered from the loosest to
 * the strictest value. Config merging picks the strictest value any source sets (see
 * {@link strictestOf}); policy and gate read the same arrays.
 */

/** `security.profile`: personal_cli (no extra limits) < daemon < public_gateway. */
export const SECURITY_PROFILES = ["personal_cli", "daemon", "public_gateway"] as const;
export type SecurityProfile = (typeof SECURITY_PROFILES)[number];

/** `execution.network_policy`: the tool room's sandbox reads it too, so it is the catalog's. */
export { NETWORK_POLICIES, type NetworkPolicy } from "../catalog/index.js";

/** `tools.exec.security` (seed 002 ExecSecurity): full < allowlist (safe bins) < deny. */
export const EXEC_SECURITY_LEVELS = ["full", "allowlist", "deny"] as const;
export type ExecSecurity = (typeof EXEC_SECURITY_LEVELS)[number];

/** `tools.exec.ask` (seed 002 ExecAsk): off < on-miss (ask when not a safe bin) < always. */
export const EXEC_ASK_MODES = ["off", "on-miss", "always"] as const;
export type ExecAsk = (typeof EXEC_ASK_MODES)[number];

/**
 * `permissions.approval.mode`: smart (an LLM may approve exec calls) < off (no LLM pre-screen; the
 * other shortcuts apply) < strict (no smart approval, trusted channels or CLI auto-approval; only
 * allow-always records or a person).
 */
export const APPROVAL_MODES = ["smart", "off", "strict"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** `permissions.approval.unattended_policy`: allow_safe < deny. */
export const UNATTENDED_POLICIES = ["allow_safe", "deny"] as const;
export type UnattendedPolicy = (typeof UNATTENDED_POLICIES)[number];

/**
 * `tools.execution` (seed 002 `toolExecution`): parallel = a batch runs in parallel when every call
 * in it is concurrency-safe for its arguments (else sequentially); sequential = every batch runs one
 * call after the other, in call order.
 */
export const TOOL_EXECUTION_MODES = ["parallel", "sequential"] as const;
export type ToolExecutionMode = (typeof TOOL_EXECUTION_MODES)[number];

/** Session permission modes (seed 002), loosest first: full < workspace < guarded < read-only. */
export const SESSION_PERMISSION_MODES = ["full", "workspace", "guarded", "read-only"] as const;
export type SessionPermissionMode = (typeof SESSION_PERMISSION_MODES)[number];

/**
 * The strictest of `values` by the order of `ordered` (loosest first). Undefined when `values` is
 * empty. Used so that no config source can loosen what another source tightened.
 */
export function strictestOf<T extends string>(ordered: readonly T[], values: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const value of values) {
    if (best === undefined || ordered.indexOf(value) > ordered.indexOf(best)) best = value;
  }
  return best;
}
