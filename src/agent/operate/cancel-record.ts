/**
 * The journal key under which a cancel is recorded (who, from where, why, when): one per cancel,
 * so a run cancelled, retried and cancelled again keeps both. No tool call or model step has it.
 */
export function cancelJournalKey(at: number): string {
  return `cancel:${Math.floor(at)}`;
}

/** Whether a journal key records a cancel (see {@link cancelJournalKey}). */
export function isCancelJournalKey(key: string): boolean {
  return /^cancel:\d+$/.test(key);
}
