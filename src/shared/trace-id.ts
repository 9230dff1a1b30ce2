import { sha256Hex } from "./hash.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The W3C / OpenTelemetry trace id (32 lowercase hex digits) of a run tree's trace id (the payload's
 * `traceId`, shared by a run, its resumed attempts and its sub-agents). Derived, never stored: every
 * worker that runs an attempt, the logs and /admin compute the same id, so a parked run's spans after
 * its resume land in the trace its first attempt started. A UUID (what the runner mints) is its own
 * hex digits, so the id in a trace viewer reads like the runner's; any other id is hashed.
 */
export function otelTraceId(traceId: string): string {
  if (UUID.test(traceId)) {
    const hex = traceId.replace(/-/g, "").toLowerCase();
    // All zeros is the invalid trace id of the W3C format.
    if (!/^0+$/.test(hex)) return hex;
  }
  return sha256Hex(`trace:${traceId}`).slice(0, 32);
}
