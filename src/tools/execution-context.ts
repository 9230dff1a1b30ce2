import { canonicalJson, deepFreeze, RunnerError, sha256Hex } from "../shared/index.js";
import { FrozenSet } from "./frozen-set.js";
import type { RunControl } from "./loop/run-control.js";

/**
 * How a call was approved (seed 000 `approval_source`): `human` only when a person approved this
 * very call; `auto` for every policy decision (allow lists, trusted channels, CLI auto-approval,
 * smart approval). Tools that grant lasting privileges (cronjob's `cron_authorized`) require `human`.
 */
export const APPROVAL_SOURCES = ["human", "auto"] as const;
export type ApprovalSource = (typeof APPROVAL_SOURCES)[number];

/**
 * The frozen context of one tool execution: the 20 fields of seed 000's `ToolExecutionContext`, in
 * camelCase. Built only by {@link createToolExecutionContext}, which deep-freezes it.
 */
export interface ToolExecutionContext {
  /** Unique id of this execution. */
  readonly executionId: string;
  /** Trace id of the whole chain (run, children, retries). */
  readonly traceId: string;
  /** Session key (locks, history, delivery). */
  readonly sessionKey: string;
  /** Memory scope, normalised per person. */
  readonly memoryScope: string;
  /** The user who started the run. */
  readonly userId: string;
  /** The agent making the call. */
  readonly agentId: string;
  /**
   * Retry number of this call, 0 for the first attempt: +1 for each retry of a failed attempt
   * (the tool's `maxRetries`) and for each re-run after a crash left the call in doubt.
   */
  readonly attemptIndex: number;
  /** See {@link computeIdempotencyKey}. */
  readonly idempotencyKey: string;
  /**
   * True when this execution repeats one that may already have happened: the call was claimed
   * before a crash left it in doubt, and it runs again because the tool is read-only for these
   * arguments or idempotent (it dedupes by {@link idempotencyKey}, so it must not repeat its side
   * effect). A call a person approved to run again after a crash runs with false. A completed call is
   * never executed again at all: its journalled result is returned.
   */
  readonly isReplay: boolean;
  /** Execution id of the parent (nested calls, child jobs); null at the top. */
  readonly parentExecutionId: string | null;
  /**
   * Injected credentials by name. Not enumerable, so `JSON.stringify(ctx)` and loggers never print
   * them; read them by name.
   */
  readonly credentials: Readonly<Record<string, string>>;
  /**
   * What a person approved for this execution (seed 000 `approved_actions`): the tool's name, as
   * the seed's own example checks (`"my_tool" in ctx.approved_actions`), and the call's idempotency
   * key. Empty when no person approved this call; an approval of an earlier call never appears here.
   */
  readonly approvedActions: ReadonlySet<string>;
  /** How this call was approved. */
  readonly approvalSource: ApprovalSource;
  /** The tools this execution may call (the resolved policy's visible and deferred tools). */
  readonly allowedTools: ReadonlySet<string>;
  /** Origin channel ("cli", "cron", "email", ...). */
  readonly channel: string;
  /** Chat id on that channel ("" when none). */
  readonly chatId: string;
  /** Message id to reply to ("" when none). */
  readonly replyToId: string;
  /** True when nobody is watching (cron runs, background children). */
  readonly unattended: boolean;
  /** True when the run was started by a schedule holding a valid cron grant. */
  readonly cronAuthorized: boolean;
  /** Id of the inbound event that started the run ("" when none). */
  readonly inboundEventId: string;
  /**
   * Runner extension beyond seed 000's 20 fields: the absolute path of the run's workspace, the
   * root file tools fence paths into and processes run in.
   */
  readonly workspace: string;
  /**
   * Runner extension: true when every path a tool touches must resolve inside {@link workspace} —
   * the strictest of `tools.restrict_to_workspace` and the session mode (every mode but full). File
   * tools, exec's working directory and exec's path operands are fenced by it.
   */
  readonly workspaceOnly: boolean;
  /**
   * Runner extension: the run's own controls (start and read child runs, park, ask a person), given
   * only to the tools that declare they use them (src/tools/loop) and only inside a run. Not
   * enumerable, like credentials: it is behaviour, not data.
   */
  readonly runControl?: RunControl;
}

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
  const approvalSource = options.approvalSource ?? "auto";
  if (!(APPROVAL_SOURCES as readonly string[]).includes(approvalSource)) {
    invalid(
      "approvalSource",
      `must be one of ${APPROVAL_SOURCES.join(", ")}, got ${JSON.stringify(approvalSource)}`,
    );
  }
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
    allowedTools: new FrozenSet(options.allowedTools),
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
