import {
  type ApprovalNotifications,
  type ApprovalRecord,
  type ApprovalStore,
  approvalIdFor,
  type RedisAllowAlwaysStore,
  resolveParkedCall,
} from "../../approvals/index.js";
import { isExecClassTool } from "../../catalog/index.js";
import { callFindings } from "../../gate/index.js";
import type { Logger } from "../../logging/index.js";
import { isRunnerError } from "../../shared/index.js";
import type { ApprovalPort } from "../run/ports.js";

/**
 * Two-phase approvals for the run loop over the approval store: register (idempotent: a replay finds
 * the same request), notify once, and read the decision back judged against the call about to run.
 */
export function storeApprovals(options: {
  store: ApprovalStore;
  notifications: ApprovalNotifications;
  logger: Logger;
  /** Where approve-always decisions become allow-always records (exec-class tools only). */
  allowAlways?: RedisAllowAlwaysStore;
  /**
   * Told when the run reads that its call's approval expired (the call is denied): the alerts'
   * `call_expired`. Its failure is logged, never the run's.
   */
  onExpired?: (record: ApprovalRecord) => Promise<void>;
}): ApprovalPort {
  const { store, notifications, logger } = options;
  return {
    async lookup(call) {
      const id = approvalIdFor(call.runId, call.idempotencyKey);
      const record = await store.get(id);
      if (record === null) return { status: "none" };
      const action = resolveParkedCall(
        record,
        { id, runId: call.runId, tool: call.tool, argsHash: call.argsHash },
        store.clock.now(),
      );
      switch (action.action) {
        case "execute": {
          const approver = action.approvers.join(", ");
          if (action.always && options.allowAlways && isExecClassTool(call.tool)) {
            // Scoped to the agent and to these exact arguments: never the binary name alone.
            await options.allowAlways.add({
              v: 1,
              tool: call.tool,
              argsHash: call.argsHash,
              scope: "agent",
              scopeId: call.agentId,
              createdBy: approver,
              createdAt: store.clock.now(),
              runId: call.runId,
            });
          }
          return {
            status: "approved",
            approver,
            argsHash: call.argsHash,
            tool: call.tool,
            comment: record.decisions
              .map((d) => d.comment)
              .filter((c) => c.length > 0)
              .join("\n"),
          };
        }
        case "wait":
          return { status: "pending", deadline: action.until };
        case "deny": {
          const status =
            action.reason === "expired" ? "expired" : action.reason === "cancelled" ? "cancelled" : "denied";
          if (status === "expired") {
            await options
              .onExpired?.(record)
              .catch((err: unknown) =>
                logger.warn({ err: String(err) }, "reporting an expired approval failed"),
              );
          }
          return {
            status,
            by: record.decisions.map((d) => d.by).join(", ") || "nobody",
            reason: action.message,
          };
        }
      }
    },
    async register(request) {
      const { payload, call } = request;
      const { record } = await store.register({
        runId: payload.runId,
        jobId: request.jobId,
        traceId: payload.traceId,
        idempotencyKey: request.idempotencyKey,
        tool: call.tool,
        args: request.subject ?? call.args,
        risk: call.risk,
        // The Flags row lists findings only; the reason (its own row) says why in words.
        flags: request.decision?.flagged ? callFindings(request.call) : [],
        reason: request.reason,
        agent: payload.agentId,
        channel: payload.channel,
        scheduleId: payload.origin.scheduleId ?? null,
        parentRunId: payload.parentExecutionId,
        owner: payload.userId,
      });
      try {
        await notifications.notify(record.id);
      } catch (err) {
        // The request stays pending and the sweeper re-sends; the run parks either way.
        if (!isRunnerError(err, "APPROVAL_NOTIFY_FAILED")) throw err;
        // The worker's logger is shared by all runs: name this run as its per-run logger would.
        logger.warn(
          {
            approvalId: record.id,
            traceId: payload.traceId,
            executionId: payload.runId,
            jobId: request.jobId,
            err: err.message,
          },
          "approval notification failed; will retry",
        );
      }
      return { wakeAt: record.status === "pending" ? record.deadline : store.clock.now() };
    },
  };
}
