import {
  APPROVAL_SOURCES,
  type ApprovalSource,
  type RunControl,
  type ToolExecutionContext,
} from "../../catalog/index.js";
import { canonicalJson, deepFreeze, RunnerError, sha256Hex } from "../../shared/index.js";
import { FrozenSet } from "./frozen-set.js";

/** What identifies one tool call for its {@link ToolExecutionContext.idempotencyKey}. */
export interface IdempotencyKeyInput {
  /** Trace id of the run. */
  traceId: string;
  /** Tool name. */
  toolName: string;
  /**
   * 0-based index of the call within the run, counted over every tool call of every step. Stable
   * across replays because model responses are journalled.
   */
  callIndex: number;
  /** The call's validated arguments. */
  params: unknown;
}

/**
 * The idempotency key of a tool call: hex SHA-256 of
 * `canonicalJson([traceId, toolName, callIndex, canonicalJson(params)])`. Canonical JSON sorts object
 * keys at every depth, so two argument objects that differ only in key order get the same key; any
 * changed value gives a new key. The fields are hashed as one JSON array, so no choice of strings can
 * make two different calls collide by concatenation.
 */
export function computeIdempotencyKey(input: IdempotencyKeyInput): string {
  requireText("traceId", input.traceId);
  requireText("toolName", input.toolName);
  requireIndex("callIndex", input.callIndex);
  return sha256Hex(
    canonicalJson([input.traceId, input.toolName, input.callIndex, canonicalJson(input.params)]),
  );
}

/** Options for {@link createToolExecutionContext}. Optional fields default as documented. */
export interface ToolExecutionContextOptions {
  executionId: string;
  traceId: string;
  sessionKey: string;
  userId: string;
  agentId: string;
  /** Default: `user:<userId>` (memory is scoped per person). */
  memoryScope?: string;
  /** The call, for the idempotency key. */
  call: { toolName: string; callIndex: number; params: unknown };
  /** Default 0. */
  attemptIndex?: number;
  /** Default false. */
  isReplay?: boolean;
  /** Default null. */
  parentExecutionId?: string | null;
  /** Default none. */
  credentials?: Readonly<Record<string, string>>;
  /** Default none. */
  approvedActions?: Iterable<string>;
  /** Default "auto": only an explicit human approval may say "human". */
  approvalSource?: ApprovalSource;
  /** Required: there is no "every tool" default. */
  allowedTools: Iterable<string>;
  channel: string;
  chatId?: string;
  replyToId?: string;
  /** Required: whether anyone is watching decides what the gate may auto-approve. */
  unattended: boolean;
  /** Default false. */
  cronAuthorized?: boolean;
  inboundEventId?: string;
  /** Absolute path of the run's workspace. Required: there is no "anywhere" default. */
  workspace: string;
  /** Default true (fail closed): only a run whose fence is open passes false. */
  workspaceOnly?: boolean;
  /** Default none: only the run loop passes it, to the tools that use it. */
  runControl?: RunControl;
}

/**
 * Builds the deep-frozen context of one tool execution, computing its idempotency key. Throws
 * RunnerError TOOL_CONTEXT_INVALID naming the field when an id is empty or an index is not a whole
 * number >= 0.
 */
export function createToolExecutionContext(options: ToolExecutionContextOptions): ToolExecutionContext {
  for (const field of [
    "executionId",
    "traceId",
    "sessionKey",
    "userId",
    "agentId",
    "channel",
    "workspace",
  ] as const) {
    requireText(field, options[field]);
  }
  const attemptIndex = options.attemptIndex ?? 0;
  requireIndex("attemptIndex", attemptIndex);
  const approvalSource = checkedApprovalSource(options.approvalSource);
  if (typeof options.unattended !== "boolean") invalid("unattended", "must be true or false");
  const parentExecutionId = options.parentExecutionId ?? null;
  if (parentExecutionId !== null) requireText("parentExecutionId", parentExecutionId);
  const ctx = {
    executionId: options.executionId,
    traceId: options.traceId,
    sessionKey: options.sessionKey,
    memoryScope: options.memoryScope ?? `user:${options.userId}`,
    userId: options.userId,
    agentId: options.agentId,
    attemptIndex,
    idempotencyKey: computeIdempotencyKey({ traceId: options.traceId, ...options.call }),
    isReplay: options.isReplay ?? false,
    parentExecutionId,
    approvedActions: new FrozenSet(options.approvedActions ?? []),
    approvalSource,
    // A FrozenSet cannot change: a run passes its own for every call instead of a copy each time.
    allowedTools:
      options.allowedTools instanceof FrozenSet ? options.allowedTools : new FrozenSet(options.allowedTools),
    channel: options.channel,
    chatId: options.chatId ?? "",
    replyToId: options.replyToId ?? "",
    unattended: options.unattended,
    cronAuthorized: options.cronAuthorized ?? false,
    inboundEventId: options.inboundEventId ?? "",
    workspace: options.workspace,
    workspaceOnly: options.workspaceOnly ?? true,
  };
  Object.defineProperty(ctx, "credentials", {
    value: { ...(options.credentials ?? {}) },
    enumerable: false,
  });
  if (options.runControl)
    Object.defineProperty(ctx, "runControl", { value: options.runControl, enumerable: false });
  return deepFreeze(ctx) as unknown as ToolExecutionContext;
}

/**
 * The same context for a later attempt of the same call: identical but for `attemptIndex` (the
 * idempotency key stays the call's). Credentials stay non-enumerable; the copy is deep-frozen.
 */
export function contextForAttempt(ctx: ToolExecutionContext, attemptIndex: number): ToolExecutionContext {
  requireIndex("attemptIndex", attemptIndex);
  if (attemptIndex === ctx.attemptIndex) return ctx;
  const copy = { ...ctx, attemptIndex };
  Object.defineProperty(copy, "credentials", { value: { ...ctx.credentials }, enumerable: false });
  if (ctx.runControl) Object.defineProperty(copy, "runControl", { value: ctx.runControl, enumerable: false });
  return deepFreeze(copy) as unknown as ToolExecutionContext;
}

/** What the decision and the claim add to a call's context before it executes. */
export type ExecutionDetails = Pick<
  ToolExecutionContextOptions,
  "attemptIndex" | "isReplay" | "approvalSource" | "approvedActions" | "credentials" | "runControl"
>;

/**
 * The context `base` describes, with what its decision and claim add (approval, attempt, replay,
 * credentials, run controls): the same as {@link createToolExecutionContext} with those options
 * would build, but from the already checked and frozen base, so the call's idempotency key is not
 * hashed again and its sets are not copied again. The details are checked as there.
 */
export function contextForExecution(
  base: ToolExecutionContext,
  details: ExecutionDetails,
): ToolExecutionContext {
  const attemptIndex = details.attemptIndex ?? 0;
  requireIndex("attemptIndex", attemptIndex);
  const approvalSource = checkedApprovalSource(details.approvalSource);
  const copy = {
    ...base,
    attemptIndex,
    isReplay: details.isReplay ?? false,
    approvalSource,
    approvedActions: new FrozenSet(details.approvedActions ?? []),
  };
  Object.defineProperty(copy, "credentials", {
    value: { ...(details.credentials ?? {}) },
    enumerable: false,
  });
  if (details.runControl)
    Object.defineProperty(copy, "runControl", { value: details.runControl, enumerable: false });
  return deepFreeze(copy) as unknown as ToolExecutionContext;
}

/** The approval source, "auto" when absent (only an explicit human approval may say "human"). */
function checkedApprovalSource(value: ApprovalSource | undefined): ApprovalSource {
  const source = value ?? "auto";
  if (!(APPROVAL_SOURCES as readonly string[]).includes(source)) {
    invalid("approvalSource", `must be one of ${APPROVAL_SOURCES.join(", ")}, got ${JSON.stringify(source)}`);
  }
  return source;
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== "string" || value.length === 0) invalid(field, "must be a non-empty string");
}

function requireIndex(field: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    invalid(field, `must be a whole number >= 0, got ${String(value)}`);
  }
}

function invalid(field: string, problem: string): never {
  throw new RunnerError("TOOL_CONTEXT_INVALID", `ToolExecutionContext.${field} ${problem}`, {
    data: { field },
  });
}
