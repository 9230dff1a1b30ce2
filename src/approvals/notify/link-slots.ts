import type { ApprovalRecord } from "../store/index.js";
import type { Delivery } from "./notifier.js";

/**
 * The token slot each approver's delivery of a send uses (`ApprovalStore.issueToken`). When none of
 * the approver's targets of this message was reached yet (a first send, a reminder, a send that
 * failed everywhere), their deliveries share one link in the main slot (""), replacing any earlier
 * link: the newer message to that person carries the live one. When some of them were reached (a
 * personal chat webhook failed while the mail went out), the re-sent targets each get a link in a
 * slot of their own notifier, and the link that reached the person stays valid (else
 * each sweep would re-issue the approver's token and the mailed link would answer 410).
 *
 * `all` is every delivery of this kind of message for the record; `pending` those sent now. Keyed by
 * delivery target; deliveries without an approver (per-request notifiers) carry no link.
 */
export function linkSlots(
  record: ApprovalRecord,
  all: readonly Delivery[],
  pending: readonly Delivery[],
): Map<string, { approver: string; slot: string }> {
  const reached = new Set<string>();
  for (const d of all) {
    if (d.approver !== null && record.deliveredTo.includes(d.target)) reached.add(d.approver.id);
  }
  const slots = new Map<string, { approver: string; slot: string }>();
  for (const d of pending) {
    if (d.approver === null) continue;
    const approver = d.approver.id;
    slots.set(d.target, { approver, slot: reached.has(approver) ? d.notifier.name : "" });
  }
  return slots;
}
