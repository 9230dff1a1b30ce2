import { RunnerError } from "../shared/index.js";

/** Where a page of runs ended: the last run's enqueue time and id (the list's order, run-inspector.ts). */
export interface RunCursor {
  created: number;
  runId: string;
}

/** An opaque cursor for a URL or a command line (base64url, no characters that need quoting). */
export function encodeRunCursor(created: number, runId: string): string {
  return Buffer.from(JSON.stringify([created, runId]), "utf8").toString("base64url");
}

/** The cursor's position; CLI_USAGE for a string that no page returned. */
export function decodeRunCursor(text: string): RunCursor {
  try {
    if (text.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(text)) throw new Error("not base64url");
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === "string"
    )
      return { created: value[0] as number, runId: value[1] };
  } catch {
    // Reported below, as for any other string that is not a cursor.
  }
  throw new RunnerError(
    "CLI_USAGE",
    "the cursor is not one a run listing returned; pass the `next_cursor` of the previous page as it is",
  );
}
