import type { ExecHost, ToolEnvironment } from "../../catalog/index.js";
import type { ApprovalGate } from "../../gate/index.js";
import type { InDoubtPolicy, Journal } from "../../journal/index.js";
import type { Logger } from "../../logging/index.js";
import type { ToolExecutionMode, ToolPolicyResolution } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { Clock } from "../../shared/index.js";
import type { ToolRegistry, WorkspaceLayerPort } from "../../tools/index.js";
import type { RunBudget } from "../budget/run-budget.js";
import type { UsageIndex } from "../budget/usage-index.js";
import type { ModelPrice } from "../budget/usage-totals.js";
import type { ModelClient } from "../model/model-client.js";
import type { ModelRetryPolicy } from "../model/model-retry.js";
import type { ApprovalPort, AuditSink, CallGuard, ChildrenPort, SpillStore } from "./ports.js";
import type { RunTracer } from "./run-tracer.js";
import type { SessionRecorder } from "./session-transcript.js";
import type { BeforeToolBatchHook } from "./tool-batch-hook.js";

/** Everything a run needs, built once per worker from config by the worker entrypoint. */
export interface RunDeps {
  journal: Journal;
  registry: ToolRegistry;
  toolEnvironment: ToolEnvironment;
  /** The policy layers' answer for this run (profile, deny, security profile, network, session, job subset, state). */
  resolvePolicy(payload: AgentJobPayload): ToolPolicyResolution;
  /** The gate for this run (its session mode decides the exec mode). */
  gateFor(payload: AgentJobPayload): ApprovalGate;
  /** The model client for a model name of config `models`; throws for an unknown name. */
  model(name: string): ModelClient;
  guard: CallGuard;
  /** `tools.exec.host` (default local): bound into exec-class calls' approval hash. */
  execHost?: ExecHost;
  approvals: ApprovalPort;
  audit: AuditSink;
  spill: SpillStore;
  /** Credentials injected into one tool's context at execution time (never journalled or logged). */
  credentials(tool: string): Readonly<Record<string, string>>;
  /** Whether a scheduled run holds a valid cron grant, checked when the run starts. */
  cronAuthorized(payload: AgentJobPayload): Promise<boolean>;
  inDoubtPolicy: InDoubtPolicy;
  /**
   * Lease of a journal claim, ms: renewed every third of it while the call runs, so a crashed
   * worker's claim lapses within one lease and the call is then in doubt.
   */
  claimLeaseMs: number;
  /** Child runs of delegate_task / spawn_task. */
  children: ChildrenPort;
  /** Nesting and fan-out limits of child runs (config execution.max_child_depth / max_children_per_run). */
  childLimits: { maxDepth: number; maxChildrenPerRun: number };
  /** A parent waiting for its child re-checks this often even if no wake-up arrives, ms. */
  childRecheckMs: number;
  clock: Clock;
  logger: Logger;
  /** Where a finished run's transcript is archived for session_search; none: not archived. */
  sessions?: SessionRecorder;
  /** `tools.execution` (seed 002 toolExecution); default parallel (per-call isConcurrencySafe decides). */
  toolExecution?: ToolExecutionMode;
  /** seed 002 `beforeToolBatch`: may veto a whole batch (see {@link BeforeToolBatchHook}); none by default. */
  beforeToolBatch?: BeforeToolBatchHook;
  /**
   * The run tree's budget and the context budget (tokens per request) of a run, from config
   * (agents and schedules); none: no limits, the history is sent whole.
   */
  budgetFor?(payload: AgentJobPayload): RunLimits;
  /** Price of a model of config `models` (USD per million tokens); none: cost is not counted. */
  priceOf?(model: string): ModelPrice | undefined;
  /** Which runs share a tree's and a schedule-day's budget; none: each run counts alone. */
  usageIndex?: UsageIndex;
  /** Tells a run's owner that it stopped at a budget (email to the approvers entry of that id). */
  notifyOwner?(payload: AgentJobPayload, notice: { subject: string; text: string }): Promise<void>;
  /** Retries of transient model failures inside a step (default: 4 attempts, 1 s doubling). */
  modelRetry?: Partial<ModelRetryPolicy>;
  /**
   * The runs' copy-on-write layers over their workspaces (docs/SANDBOX.md): every tool call of a run works
   * in its layer, and the run's end lands the change set or parks it for a person. None: the tools
   * work on the real workspace.
   */
  layers?: WorkspaceLayerPort;
  /**
   * Where the run's spans go (OpenTelemetry when an OTLP endpoint is configured, see
   * docs/OPERATING.md "Traces"); none: nothing is recorded.
   */
  tracer?: RunTracer;
}

/** A run's limits from config. */
export interface RunLimits {
  readonly budget: RunBudget;
  /** Tokens each request may take; undefined = no context budget. */
  readonly contextBudget: number | undefined;
  /** Per-tool-type live output budgets, characters per turn; undefined = the defaults (exec, process). */
  readonly liveOutputChars?: Readonly<Record<string, number>> | undefined;
}

/** How a run ended, as the job's return value's status. */
export const RUN_STATUSES = ["completed", "max_steps", "budget_exhausted", "truncated", "refused"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run ended (the job's return value). */
export interface RunOutcome {
  /**
   * `budget_exhausted`: a run budget was reached before the next model call; `truncated`: the
   * model's answer was cut at its output limit (no tool call of it ran); `refused`: the model or the
   * provider's filter declined.
   */
  readonly status: RunStatus;
  readonly finalAnswer: string;
  readonly steps: number;
  readonly toolCalls: number;
  /** What the run itself consumed (its sub-agents not included), summed from its journal. */
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedTokens: number;
    readonly costUsd: number;
    readonly activeSeconds: number;
    readonly retries: number;
  };
  /** The limit reached, when the status is budget_exhausted. */
  readonly budget?: { readonly limit: string; readonly allowed: number; readonly used: number };
  /** What became of the run's layer: landed in the workspace, or kept unlanded (with why). */
  readonly landing?: { readonly state: "landed" | "kept"; readonly changes: number; readonly note: string };
}
