import type { ApprovalGate } from "../../gate/index.js";
import type { InDoubtPolicy, Journal } from "../../journal/index.js";
import type { Logger } from "../../logging/index.js";
import type { ToolPolicyResolution } from "../../policy/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import type { Clock } from "../../shared/index.js";
import type { ToolEnvironment, ToolRegistry } from "../../tools/index.js";
import type { ModelClient } from "../model/model-client.js";
import type { ApprovalExecHost } from "./approval-hash.js";
import type { ApprovalPort, AuditSink, CallGuard, ChildrenPort, SpillStore } from "./ports.js";
import type { SessionRecorder } from "./session-transcript.js";

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
  execHost?: ApprovalExecHost;
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
}

/** How a run ended (the job's return value). */
export interface RunOutcome {
  readonly status: "completed" | "max_steps";
  readonly finalAnswer: string;
  readonly steps: number;
  readonly toolCalls: number;
}
