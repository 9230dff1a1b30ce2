import { RunnerError } from "../../shared/index.js";
import { ApprovalRecord, ApprovalRequestFields } from "./record.js";
import { storedRequestCandidate } from "./request-codec.js";

/** The state of one link token as stored in a `t:<hash>` field. */
export interface StoredToken {
  /** Approver id. */
  a: string;
  /** live: may decide once; used: it decided; replaced: a newer message carries the live token. */
  s: "live" | "used" | "replaced";
  at: number;
}

/** A request as read from Redis: the validated record and its token fields (hash → state). */
export interface DecodedRequest {
  record: ApprovalRecord;
  tokens: Map<string, StoredToken>;
}

/**
 * Builds and validates a record from a request hash (HGETALL as a flat array) and its fetch list;
 * the `req` field may be stored as v1 or v2 (request-codec.ts). Anything that does not match the
 * schema is APPROVAL_CORRUPT: a damaged request is never
 * treated as absent (that would ask again) nor as approved.
 */
export function decodeRequest(
  id: string,
  flat: readonly string[],
  fetches: readonly string[],
): DecodedRequest {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
  const req = parseJson(id, "req", fields.get("req"));
  const { candidate: requestFields, why } = storedRequestCandidate(id, req, fields);
  if (why !== undefined) throw corrupt(id, why);
  const fixed = ApprovalRequestFields.safeParse(requestFields);
  if (!fixed.success)
    throw corrupt(id, `its request fields do not match the schema: ${firstIssue(fixed.error)}`);
  const deliveredTo: string[] = [];
  const tokens = new Map<string, StoredToken>();
  for (const [name, value] of fields) {
    if (name.startsWith("dl:")) deliveredTo.push(name.slice(3));
    if (name.startsWith("t:")) tokens.set(name.slice(2), decodeToken(id, value));
  }
  const candidate = {
    ...fixed.data,
    status: fields.get("status"),
    decisions: parseJson(id, "decisions", fields.get("decisions")),
    finishedAt: optionalInt(fields.get("finishedAt")),
    executableUntil: optionalInt(fields.get("execUntil")),
    notifiedAt: optionalInt(fields.get("notifiedAt")),
    deliveredTo: deliveredTo.sort(),
    remindedAt: optionalInt(fields.get("remindedAt")),
    fetches: fetches.map((raw) => parseJson(id, "fetch log", raw)),
  };
  const parsed = ApprovalRecord.safeParse(candidate);
  if (!parsed.success) throw corrupt(id, `it does not match the schema: ${firstIssue(parsed.error)}`);
  if (String(parsed.data.deadline) !== fields.get("deadline") || parsed.data.id !== id) {
    throw corrupt(id, "its deadline or id field disagrees with its request fields");
  }
  return { record: parsed.data, tokens };
}

function decodeToken(id: string, raw: string): StoredToken {
  const value = parseJson(id, "token", raw) as Partial<StoredToken> | null;
  if (
    value === null ||
    typeof value !== "object" ||
    typeof value.a !== "string" ||
    (value.s !== "live" && value.s !== "used" && value.s !== "replaced") ||
    typeof value.at !== "number"
  ) {
    throw corrupt(id, "a token field is not {a, s: live|used|replaced, at}");
  }
  return { a: value.a, s: value.s, at: value.at };
}

function optionalInt(raw: string | undefined): number | null | string {
  if (raw === undefined || raw === "") return null;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function parseJson(id: string, what: string, raw: string | undefined): unknown {
  if (raw === undefined) throw corrupt(id, `its ${what} field is missing`);
  try {
    return JSON.parse(raw);
  } catch (cause) {
    throw corrupt(id, `its ${what} field is not valid JSON`, cause);
  }
}

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(record)";
  return `${where}: ${issue?.message ?? "invalid"}`;
}

/** The error for a request that cannot be read. */
export function corrupt(id: string, why: string, cause?: unknown): RunnerError {
  return new RunnerError(
    "APPROVAL_CORRUPT",
    `approval request ${id} is corrupt: ${why}; it is neither approved nor re-asked — inspect or delete it`,
    { data: { id }, cause },
  );
}
