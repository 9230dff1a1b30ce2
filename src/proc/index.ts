/**
 * Facts about processes read from /proc, for the rooms that must tell a live process from a
 * reused pid (the tool room's process records, the queue's worker records). Layer 0, so both can
 * import it without loading each other.
 */
export { processStartTime } from "./process-start-time.js";
