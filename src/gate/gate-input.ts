import { EXEC_CLASS_TOOLS, type ExecHost, type RiskLevel } from "../catalog/index.js";
import type { GuardAssessment } from "../guard/index.js";
import type { ApprovalMode, ExecAsk, ExecMode, ExecSecurity, UnattendedPolicy } from "../policy/index.js";

export type { GuardAssessment } from "../guard/index.js";

/** The tools whose calls run processes on a host (seed 000: elevation applies only to these). */
export { EXEC_CLASS_TOOLS };

/** Where exec-class tools run (`tools.exec.host`). */
export type ExecHostKind = ExecHost;

/** One tool call as the gate sees it. Arguments were validated and classified before. */
export interface GateCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Classified risk (max of static, declared and argument-derived; policy's classifyRisk). */
  readonly risk: RiskLevel;
  /** The guard's verdict; undefined for tools the guard has nothing to say about. */
  readonly guard?: GuardAssessment;
  /** The tool's own checkPermissions answer (it can only tighten). */
  readonly toolPermission?:
    | { readonly behavior: "passthrough" }
    | { readonly behavior: "ask" | "deny"; readonly reason: string };
  /** SHA-256 of the canonical arguments (binds allow-always records and human approvals). */
  readonly argsHash: string;
}

/** The fields of the ToolExecutionContext the gate reads (seed 000 names, camelCase). */
export interface GateContext {
  readonly unattended: boolean;
  readonly cronAuthorized: boolean;
  readonly channel: string;
  readonly userId: string;
  readonly agentId: string;
  readonly parentExecutionId: string | null;
  /** A person is at an interactive prompt (CLI session), not a queued or scheduled run. */
  readonly interactive: boolean;
  /** Schedule the run came from, for scoping allow-always records. */
  readonly scheduleId?: string | undefined;
}

/** A person's approval of one call, read back from the approval store after a park. */
export interface HumanApproval {
  readonly approver: string;
  /** The hash of the arguments the person saw; must equal the call's. */
  readonly argsHash: string;
  readonly tool: string;
}

/** Gate settings (mapped from config by the config module). */
export interface GateConfig {
  readonly autoApprove: readonly string[];
  readonly trustedChannels: readonly string[];
  readonly cliAutoApprove: boolean;
  readonly mode: ApprovalMode;
  readonly unattendedPolicy: UnattendedPolicy;
  /** A smart-approval model is configured (mode smart uses it). */
  readonly smartModelConfigured: boolean;
  readonly elevated: {
    readonly enabled: boolean;
    /** channel (or "*") → sender ids (or "*"). */
    readonly allowFrom: Readonly<Record<string, readonly string[]>>;
  };
  readonly adminUsers: readonly string[];
  readonly execSecurity: ExecSecurity;
  readonly execAsk: ExecAsk;
  readonly execHost: ExecHostKind;
  /** The session's exec mode (policy's EXEC_MODE_BY_PERMISSION_MODE). */
  readonly sessionExecMode: ExecMode;
}
