import { type ApprovalRecord, approvalIdFor, approvalOutcome } from "../approvals/index.js";
import type { ToolExecutionContext } from "../catalog/index.js";

/**
 * The `approverOf` of the cronjob tool over the approval store: the people who approved this very
 * call (the request of its run and idempotency key), or undefined when there is no approved request.
 * The run loop looked the same request up to mark the call `human`; reading it again here names the
 * approver without widening the tool context.
 */
export function approverFromApprovals(store: {
  get(id: string): Promise<ApprovalRecord | null>;
}): (ctx: ToolExecutionContext) => Promise<string | undefined> {
  return async (ctx) => {
    const record = await store.get(approvalIdFor(ctx.executionId, ctx.idempotencyKey));
    if (record?.status !== "approved") return undefined;
    const { approvers } = approvalOutcome(record);
    return approvers.length > 0 ? approvers.join(", ") : undefined;
  };
}
