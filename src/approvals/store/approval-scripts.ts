/**
 * The approval store's Lua scripts: each operation is one atomic round trip. Every key lives under
 * the `{approvals}` hash tag (see keys.ts), so the scripts that reach a request's key from an id
 * (cancel a run, expire, claim reminders) stay in one Cluster slot.
 *
 * Layout of a request hash: `req` (immutable JSON written by the client, never re-encoded here),
 * `status`, `decisions` (a JSON array that Lua appends to as text), `deadline`, `required`, `owner`,
 * `noself`, `always`, `grace`, `runId`, `jobId` (absent when it equals `runId`), `finishedAt`,
 * `execUntil`, `notifiedAt`, `remindedAt`, `dl:<target>` (delivered), `bo:<target>` (failed sends
 * and the next try, "<failures>|<ms>"), `cur:<approver>` (hash of the
 * live token) and `t:<token hash>` (`{a: approver, s: live|used|replaced, at}`).
 *
 * A run's request ids (`run:<runId>`) are the fields of a small hash, which Redis keeps as a
 * listpack (a set of non-integer members is a hash table before Redis 7.2, ~150 bytes more per
 * parked run); runs parked before that keep their set, so both types are read and added to.
 *
 * Time is always an argument (`now`, ms): the caller's injected Clock decides, so expiry tests move
 * time instead of sleeping. Replies are arrays whose first member is the outcome.
 */
import { luaScript } from "../../lua/index.js";
import { RunnerError } from "../../shared/index.js";

/** One script: its number of keys and source. */
function script(file: string): { keys: number; lua: string } {
  const { lua, numberOfKeys } = luaScript(import.meta.url, file);
  if (numberOfKeys === undefined) {
    throw new RunnerError(
      "INTERNAL",
      `approval script ${file} does not name its key count (<name>-<keys>.lua)`,
    );
  }
  return { keys: numberOfKeys, lua };
}

/**
 * Script name (the ioredis command defined for it) → number of keys and Lua source, each script in
 * its .lua file beside this one (KEYS, ARGV and the reply in its header).
 */
export const APPROVAL_SCRIPTS = {
  echoApprovalRegister: script("approvalRegister-1.lua"),
  echoApprovalDecide: script("approvalDecide-1.lua"),
  echoApprovalCancelRun: script("approvalCancelRun-1.lua"),
  echoApprovalForgetCancelled: script("approvalForgetCancelled-1.lua"),
  echoApprovalExpireDue: script("approvalExpireDue-1.lua"),
  echoApprovalIssueToken: script("approvalIssueToken-1.lua"),
  echoApprovalMarkDelivered: script("approvalMarkDelivered-1.lua"),
  echoApprovalMarkNotified: script("approvalMarkNotified-2.lua"),
  echoApprovalMarkTargetFailed: script("approvalMarkTargetFailed-1.lua"),
  echoApprovalClaimReminders: script("approvalClaimReminders-1.lua"),
  echoApprovalMarkReminded: script("approvalMarkReminded-2.lua"),
  echoApprovalRecordFetch: script("approvalRecordFetch-2.lua"),
  echoApprovalRenewSendLease: script("approvalRenewSendLease-1.lua"),
  echoApprovalReleaseSendLease: script("approvalReleaseSendLease-1.lua"),
  echoApprovalSavePromoterPosition: script("approvalSavePromoterPosition-1.lua"),
  echoApprovalDecidedSince: script("approvalDecidedSince-1.lua"),
} as const;
export type ApprovalScriptName = keyof typeof APPROVAL_SCRIPTS;
