import type { RunControl } from "./run-control.js";
/**
 * How a call was approved (seed 000 `approval_source`): `human` only when a person approved this
 * very call; `auto` for every policy decision (allow lists, trusted channels, CLI auto-approval,
 * smart approval). Tools that grant lasting privileges (cronjob's `cron_authorized`) require `human`.
 */
export const APPROVAL_SOURCES = ["human", "auto"] as const;
export type ApprovalSource = (typeof APPROVAL_SOURCES)[number];

/**
 * The frozen context of one tool execution: the 20 fields of seed 000's `ToolExecutionContext`, in
 * camelCase. Built only by createToolExecutionContext (src/tools), which deep-freezes it.
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
  /** Hash of the trace, tool, call index and arguments: see computeIdempotencyKey (src/tools). */
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
