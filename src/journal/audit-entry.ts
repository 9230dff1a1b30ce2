import { z } from "zod";
import {
  APPROVAL_SOURCES,
  CAPABILITIES,
  DECISION_VERDICTS,
  RISK_LEVELS,
  TOOL_ERROR_KINDS,
} from "../catalog/index.js";
import { OPERATOR_CHANNELS } from "../queue/index.js";

/** What an audit entry records: a gate decision, a tool execution, or an operator's action on a run. */
export const AUDIT_KINDS = ["decision", "execution", "operator"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** Gate verdicts (docs/DESIGN.md §6): the catalog's one list (the journal must not load the gate). */
export const AUDIT_VERDICTS = DECISION_VERDICTS;
export type AuditVerdict = (typeof AUDIT_VERDICTS)[number];

/** How an execution ended: success, or the tool result's error kind. */
export const EXECUTION_OUTCOMES = ["success", ...TOOL_ERROR_KINDS] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

// Ids end up in key names (the trace index), so they follow the journal's id rule.
const id = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[^{}]*$/, "must not contain { or }");

const subject = {
  /** Trace id of the run (the trace index is keyed by it). */
  traceId: id,
  /** Execution id of the call (ToolExecutionContext.executionId). */
  executionId: id,
  /** Run (job) id, when known. */
  runId: id.optional(),
  tool: z.string().min(1),
  risk: z.enum(RISK_LEVELS),
  /** Capability classes of the tool (seed 000: capabilities classify audit entries). */
  capabilities: z.array(z.enum(CAPABILITIES)),
  /** The call's idempotency key. */
  idempotencyKey: z.string().min(1).optional(),
  approvalSource: z.enum(APPROVAL_SOURCES).optional(),
  /** Who approved (a person for `human`, the rule or list for `auto`). */
  approver: z.string().min(1).optional(),
  /** Gate step (1–11) that decided; 0 when a policy layer refused the call before the gate. */
  step: z.number().int().min(0).max(11).optional(),
  /** Human-readable reason (the gate's, or the first line of an error). */
  reason: z.string().optional(),
  /** Anything else worth keeping (args hash, rule id). Secret-named fields are redacted. */
  detail: z.record(z.string(), z.unknown()).optional(),
};

const decision = {
  kind: z.literal("decision"),
  ...subject,
  verdict: z.enum(AUDIT_VERDICTS),
  step: z.number().int().min(0).max(11),
  reason: z.string(),
};

const execution = {
  kind: z.literal("execution"),
  ...subject,
  outcome: z.enum(EXECUTION_OUTCOMES),
  durationMs: z.number().int().nonnegative(),
  /** True when the result came from the journal and the tool did not run. */
  isReplay: z.boolean(),
};

/** What an operator did to a run (`jobs cancel | retry | rerun`, the API, /admin). */
export const OPERATOR_ACTIONS = ["cancel", "retry", "rerun"] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

const operator = {
  kind: z.literal("operator"),
  /** Trace id of the run acted on. */
  traceId: id,
  /** The run acted on (its execution id). */
  executionId: id,
  runId: id.optional(),
  action: z.enum(OPERATOR_ACTIONS),
  /** The operator's id (config `approvers`, or the CLI's `operator`). */
  by: z.string().min(1).max(512),
  via: z.enum(OPERATOR_CHANNELS),
  /** Why, as the operator said it; empty when they gave no reason. */
  reason: z.string(),
  /** The new run a rerun started; the job state a cancel found. */
  detail: z.record(z.string(), z.unknown()).optional(),
};

/** What a caller appends: a gate decision, a tool execution or an operator's action. */
export const AuditEvent = z.discriminatedUnion("kind", [
  z.object(decision).strict(),
  z.object(execution).strict(),
  z.object(operator).strict(),
]);
export type AuditEvent = z.infer<typeof AuditEvent>;

const stamp = {
  /**
   * 1, or 2 for an entry stored without the `executionId` and/or `traceId` that equal its `runId`
   * (see {@link storedAuditEntry}); read back, a v2 entry has them filled in again.
   */
  v: z.union([z.literal(1), z.literal(2)]),
  /** Position in the chain, from 1. */
  seq: z.number().int().positive(),
  /** When it was appended, ms since the epoch. */
  at: z.number().int().nonnegative(),
};

/** A stored entry: the event plus version, sequence number and time. Hashed in canonical JSON. */
export const AuditEntry = z.discriminatedUnion("kind", [
  z.object({ ...stamp, ...decision }).strict(),
  z.object({ ...stamp, ...execution }).strict(),
  z.object({ ...stamp, ...operator }).strict(),
]);
export type AuditEntry = z.infer<typeof AuditEntry>;
/** An entry about a tool call (a gate decision or an execution), not an operator's action. */
export type ToolAuditEntry = Exclude<AuditEntry, { kind: "operator" }>;
/** An operator's action on a run, as stored. */
export type OperatorAuditEntry = Extract<AuditEntry, { kind: "operator" }>;

/** An entry as read back, with its stream id and chain links. */
export interface AuditRecord {
  /** Redis stream id. */
  id: string;
  /**
   * Hash of the previous entry (64 zeros for the first): as stored, or for an entry stored without
   * it (v2, see {@link storesPrev}) the hash of the stream entry before it, which the reader passes.
   */
  prev: string;
  hash: string;
  entry: AuditEntry;
}

/**
 * What the stream stores (and the chain hashes) for an event appended at `seq` and `at`. Most
 * entries repeat the run id as `executionId` (a run's own calls) and as `traceId` (a top-level
 * run): those copies are left out and the entry says `v: 2`, ~40–90 bytes less per entry in a
 * trail that is never trimmed. An entry that leaves nothing out is `v: 1`, byte for byte what the
 * releases before wrote (and can read).
 */
export function storedAuditEntry(event: AuditEvent, seq: number, at: number): Record<string, unknown> {
  const runId = event.runId;
  const dropExecution = runId !== undefined && event.executionId === runId;
  const dropTrace = runId !== undefined && event.traceId === runId;
  if (!dropExecution && !dropTrace) return { ...event, v: 1, seq, at };
  // A copy by a plain loop: rest destructuring (`{ executionId, traceId, ...rest }`) took ~7 µs per
  // entry against ~0.4 µs, twice per tool call. The key order is free: the entry is hashed and
  // stored in canonical JSON.
  const stored: Record<string, unknown> = {};
  for (const key in event) {
    if ((key === "executionId" && dropExecution) || (key === "traceId" && dropTrace)) continue;
    stored[key] = event[key as keyof AuditEvent];
  }
  stored.v = 2;
  stored.seq = seq;
  stored.at = at;
  return stored;
}

/**
 * Whether the stream entry of a stored entry keeps its `prev` field. A v2 entry does not: its
 * `prev` is the `hash` of the stream entry before it, so storing it again costs ~70 bytes per entry
 * (to save memory per run) and proves nothing more. Its hash still covers it (the chain hashes `{prev, entry}`),
 * so `audit verify`, which carries each hash to the next entry, finds an entry removed, inserted,
 * reordered (its seq) or edited (its hash) just the same. A v1 entry keeps it: v1 is what the previous
 * release reads, and only that release's readers need it spelled out.
 */
export function storesPrev(stored: Record<string, unknown>): boolean {
  return stored.v !== 2;
}

/**
 * A stored entry as readers see it: a v2 entry's left-out `executionId` / `traceId` are its
 * `runId`. Anything else (including a v2 entry without a run id) is returned as it is, for the
 * schema to judge.
 */
function expandStored(json: unknown): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const stored = json as Record<string, unknown>;
  if (stored.v !== 2 || typeof stored.runId !== "string") return json;
  if (stored.executionId !== undefined && stored.traceId !== undefined) return json;
  return {
    ...stored,
    executionId: stored.executionId ?? stored.runId,
    traceId: stored.traceId ?? stored.runId,
  };
}

/**
 * Decodes the field list of one stream entry, or names what is wrong with it. `hashed` is what the
 * entry's hash covers: the entry as stored (a v2 entry without the fields it left out). `before` is
 * the hash of the stream entry before this one (64 zeros for the first), where the caller knows
 * it: the `prev` of an entry stored without one (v2). `prevStored` says which it was.
 */
export function decodeAuditFields(
  id: string,
  fields: readonly string[],
  before = "",
): { ok: true; record: AuditRecord; hashed: unknown; prevStored: boolean } | { ok: false; problem: string } {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  const raw = map.get("entry");
  const stored = map.get("prev");
  const hash = map.get("hash");
  if (raw === undefined || hash === undefined || map.size !== (stored === undefined ? 2 : 3)) {
    return {
      ok: false,
      problem: "the stream entry does not have exactly the fields entry, hash and (but for v2 entries) prev",
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, problem: "its entry is not valid JSON" };
  }
  const parsed = AuditEntry.safeParse(expandStored(json));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      problem: `its entry does not match the schema at ${issue?.path.join(".") || "(entry)"}: ${issue?.message}`,
    };
  }
  // Only a v2 entry may leave its prev to the entry before it: the previous release reads v1.
  if (stored === undefined && parsed.data.v !== 2) {
    return { ok: false, problem: `a v${parsed.data.v} entry must keep its prev field` };
  }
  // A v1 entry is hashed as it is; a v2 one as stored, which the parse left untouched apart from
  // the fields it filled in (an entry with the same fields stored, or spelled another way, hashes
  // differently, so a change of what is stored still breaks the chain).
  return {
    ok: true,
    record: { id, prev: stored ?? before, hash, entry: parsed.data },
    hashed: parsed.data.v === 2 ? json : parsed.data,
    prevStored: stored !== undefined,
  };
}
