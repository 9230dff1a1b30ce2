import type { Static, TSchema } from "typebox";
import type { Capability } from "./capabilities.js";
import type { ToolName } from "./catalog.js";
import { capabilitiesOf, type McpToolName } from "./catalog-lookup.js";
import type { ToolExecutionContext } from "./execution-context.js";
import type { RiskLevel } from "./risk.js";
import type { ToolResult } from "./tool-result.js";

/** Whether a tool's dependencies are in place (seed 000 `readiness_detail()`). */
export interface ToolReadiness {
  readonly ready: boolean;
  /** Why, for `policy explain` and the tool_state layer ("OPENAI_API_KEY is not set"). */
  readonly detail: string;
}

/**
 * The environment a tool is enabled in (seed 003 `isEnabled`: "no network → no web search").
 * Built by the worker at start; tools read it, never global config.
 */
export interface ToolEnvironment {
  /** False when the process has no outbound network (offline host, sandbox without egress). */
  readonly networkAvailable: boolean;
  /**
   * Why there is no outbound network ("no default route and no proxy configured"); the tool_state
   * reason of a tool disabled for it reads "no outbound network: <this>".
   */
  readonly networkUnavailableReason?: string;
}

/**
 * A tool's own opinion on one call (seed 003 `checkPermissions`). It can only tighten: `passthrough`
 * leaves the decision to the approval gate, `ask` needs a person, `deny` refuses. There is no
 * "allow": a tool cannot approve itself past the gate.
 */
export const PERMISSION_BEHAVIORS = ["passthrough", "ask", "deny"] as const;
export type PermissionBehavior = (typeof PERMISSION_BEHAVIORS)[number];

/** Result of {@link Tool.checkPermissions}; `reason` is required unless the behaviour is passthrough. */
export type ToolPermissionDecision =
  | { readonly behavior: "passthrough" }
  | { readonly behavior: "ask" | "deny"; readonly reason: string };

/** The default permission decision: no tool-specific opinion. */
export const PASSTHROUGH: ToolPermissionDecision = Object.freeze({ behavior: "passthrough" });

/**
 * Base class of every tool (seed 000 `Tool`, plus seed 003's argument-aware safety metadata).
 * Defaults are fail-closed: a tool is not read-only, not concurrency-safe and not idempotent unless
 * it says so. Subclasses override fields with class fields (`override readonly riskLevel = "read_only"`)
 * and methods as needed; `execute` receives arguments already validated against `parameters`.
 */
export abstract class Tool<TParams extends TSchema = TSchema> {
  /** Unique name the model calls it by: a catalog name or `mcp__<server>__<tool>`. */
  abstract readonly name: ToolName | McpToolName;
  /** What the tool does, for the model. */
  abstract readonly description: string;
  /** TypeBox schema of the arguments; its JSON Schema is what the model sees. */
  abstract readonly parameters: TParams;
  /** Per-attempt timeout in seconds. */
  timeoutSeconds = 30;
  /** Retries after a failed attempt (retried only when safe: see the journal's in-doubt rules). */
  maxRetries = 0;
  /** Whether the tool can stream partial output. */
  streamCapable = false;
  /** Declared capabilities; added to the catalog's static ones, never replacing them. */
  capabilities: readonly Capability[] = [];
  /** Declared risk; the classified risk is the most severe of this and the catalog's. */
  riskLevel: RiskLevel = "write";
  /** Extra words tool_search matches (the catalog's keywords are added for catalog tools). */
  keywords: readonly string[] = [];
  /** Load only through tool_search (seed 003 `shouldDefer`). */
  shouldDefer = false;
  /** The tool dedupes by `ctx.idempotencyKey` itself, so an in-doubt call may be re-run. */
  idempotent = false;

  /** Dependencies present? Defaults to {@link readinessDetail}'s verdict. */
  isReady(): boolean {
    return this.readinessDetail().ready;
  }

  /** Readiness with its reason. Default: ready. */
  readinessDetail(): ToolReadiness {
    return { ready: true, detail: "ready" };
  }

  /**
   * Enabled in this environment? Default: a tool with `network.outbound` (declared or from the
   * catalog) is disabled without network.
   */
  isEnabled(env: ToolEnvironment): boolean {
    return env.networkAvailable || !capabilitiesOf(this.name, this.capabilities).includes("network.outbound");
  }

  /** Does this call only read? Default: only a tool that declares risk read_only. */
  isReadOnly(_args: Static<TParams>): boolean {
    return this.riskLevel === "read_only";
  }

  /**
   * Is this call irreversible? Default: exec and dangerous tools are assumed to be (nothing proves
   * otherwise); read-only and write tools (kept inside path fences) are not.
   */
  isDestructive(_args: Static<TParams>): boolean {
    return this.riskLevel === "exec" || this.riskLevel === "dangerous";
  }

  /** May this call run in parallel with others? Default: only when it is read-only. */
  isConcurrencySafe(args: Static<TParams>): boolean {
    return this.isReadOnly(args);
  }

  /** The tool's own check of one call; it can only tighten the gate's decision. */
  checkPermissions(_args: Static<TParams>, _ctx: ToolExecutionContext): ToolPermissionDecision {
    return PASSTHROUGH;
  }

  /** Runs the call. Expected failures are returned as results; a throw becomes an `internal` result. */
  abstract execute(
    args: Static<TParams>,
    ctx: ToolExecutionContext,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
}

/** A tool of any parameter schema, as registries and the agent loop hold it. */
export type AnyTool = Tool<TSchema>;
