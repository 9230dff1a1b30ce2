import type { Static, TSchema } from "typebox";
import { RunnerError } from "../shared/index.js";
import { CAPABILITIES, type Capability } from "./capabilities.js";
import type { ToolName } from "./catalog.js";
import {
  catalogEntry,
  isKnownTool,
  isMcpToolName,
  isReservedTool,
  type McpToolName,
  mcpToolName,
} from "./catalog-lookup.js";
import type { ToolExecutionContext } from "./execution-context.js";
import { RISK_LEVELS, type RiskLevel } from "./risk.js";
import {
  type AnyTool,
  Tool,
  type ToolEnvironment,
  type ToolPermissionDecision,
  type ToolReadiness,
} from "./tool.js";
import type { ToolResult } from "./tool-result.js";

/**
 * A tool as a plain object, for {@link defineTool}. Only name, description, parameters and execute
 * are required; everything else defaults as in {@link Tool}, except `riskLevel`, which defaults to
 * the catalog's static risk for a catalog tool (and "write" otherwise).
 */
export interface ToolDefinition<T extends TSchema> {
  /** A catalog name, or `mcp__<server>__<tool>` (use defineMcpTool for those). */
  name: ToolName | McpToolName;
  description: string;
  parameters: T;
  /** `signal` aborts when the call times out or the run is cancelled: stop work and return. */
  execute(args: Static<T>, ctx: ToolExecutionContext, signal?: AbortSignal): Promise<ToolResult>;
  timeoutSeconds?: number;
  maxRetries?: number;
  streamCapable?: boolean;
  capabilities?: readonly Capability[];
  riskLevel?: RiskLevel;
  keywords?: readonly string[];
  shouldDefer?: boolean;
  idempotent?: boolean;
  isReady?(): boolean;
  readinessDetail?(): ToolReadiness;
  isEnabled?(env: ToolEnvironment): boolean;
  isReadOnly?(args: Static<T>): boolean;
  isDestructive?(args: Static<T>): boolean;
  isConcurrencySafe?(args: Static<T>): boolean;
  checkPermissions?(args: Static<T>, ctx: ToolExecutionContext): ToolPermissionDecision;
}

class DefinedTool<T extends TSchema> extends Tool<T> {
  readonly name: ToolName | McpToolName;
  readonly description: string;
  readonly parameters: T;
  readonly #def: ToolDefinition<T>;

  constructor(def: ToolDefinition<T>) {
    super();
    this.#def = def;
    this.name = def.name;
    this.description = def.description;
    this.parameters = def.parameters;
    if (def.timeoutSeconds !== undefined) this.timeoutSeconds = def.timeoutSeconds;
    if (def.maxRetries !== undefined) this.maxRetries = def.maxRetries;
    if (def.streamCapable !== undefined) this.streamCapable = def.streamCapable;
    if (def.capabilities !== undefined) this.capabilities = Object.freeze([...def.capabilities]);
    // No declaration on a catalog tool means "as the catalog says", not the class default "write".
    const riskLevel = def.riskLevel ?? catalogEntry(def.name)?.risk;
    if (riskLevel !== undefined) this.riskLevel = riskLevel;
    if (def.keywords !== undefined) this.keywords = Object.freeze([...def.keywords]);
    if (def.shouldDefer !== undefined) this.shouldDefer = def.shouldDefer;
    if (def.idempotent !== undefined) this.idempotent = def.idempotent;
  }

  override isReady(): boolean {
    return this.#def.isReady ? this.#def.isReady() : super.isReady();
  }
  override readinessDetail(): ToolReadiness {
    if (this.#def.readinessDetail) return this.#def.readinessDetail();
    if (this.#def.isReady) {
      const ready = this.#def.isReady();
      return { ready, detail: ready ? "ready" : "not ready" };
    }
    return super.readinessDetail();
  }
  override isEnabled(env: ToolEnvironment): boolean {
    return this.#def.isEnabled ? this.#def.isEnabled(env) : super.isEnabled(env);
  }
  override isReadOnly(args: Static<T>): boolean {
    return this.#def.isReadOnly ? this.#def.isReadOnly(args) : super.isReadOnly(args);
  }
  override isDestructive(args: Static<T>): boolean {
    return this.#def.isDestructive ? this.#def.isDestructive(args) : super.isDestructive(args);
  }
  override isConcurrencySafe(args: Static<T>): boolean {
    return this.#def.isConcurrencySafe ? this.#def.isConcurrencySafe(args) : super.isConcurrencySafe(args);
  }
  override checkPermissions(args: Static<T>, ctx: ToolExecutionContext): ToolPermissionDecision {
    return this.#def.checkPermissions
      ? this.#def.checkPermissions(args, ctx)
      : super.checkPermissions(args, ctx);
  }
  execute(args: Static<T>, ctx: ToolExecutionContext, signal?: AbortSignal): Promise<ToolResult> {
    return this.#def.execute(args, ctx, signal);
  }
}

/**
 * Builds a {@link Tool} from a plain object and checks it (see {@link assertValidTool}). Throws
 * RunnerError TOOL_DEFINITION_INVALID naming the bad field.
 */
export function defineTool<const T extends TSchema>(def: ToolDefinition<T>): Tool<T> {
  const tool = new DefinedTool(def);
  assertValidTool(tool);
  return tool;
}

/** A tool of an MCP server, for {@link defineMcpTool}. */
export interface McpToolDefinition<T extends TSchema> extends Omit<ToolDefinition<T>, "name" | "riskLevel"> {
  /** Server name as configured under `tools.mcp.servers`. */
  server: string;
  /** The tool's name on that server. */
  tool: string;
  /** The risk the server (or the operator's config) declares; without one the tool is `exec`. */
  declaredRisk?: RiskLevel;
}

/**
 * Builds an external tool named `mcp__<server>__<tool>`: capability `mcp.call` plus the declared
 * ones, risk as declared or `exec` when none is (fail closed), deferred by default (seed 003: external
 * tools load through tool_search).
 */
export function defineMcpTool<const T extends TSchema>(def: McpToolDefinition<T>): Tool<T> {
  const { server, tool, declaredRisk, ...rest } = def;
  const capabilities: Capability[] = [
    "mcp.call",
    ...(def.capabilities ?? []).filter((c) => c !== "mcp.call"),
  ];
  const built = new DefinedTool({
    ...rest,
    name: mcpToolName(server, tool),
    riskLevel: declaredRisk ?? "exec",
    capabilities,
    shouldDefer: def.shouldDefer ?? true,
  });
  MCP_TOOLS.add(built);
  assertValidTool(built);
  return built;
}

/**
 * External tools built by {@link defineMcpTool}. A hand-written subclass with an mcp__ name would
 * silently get the base class's default risk "write" instead of "exec", so only these are accepted.
 */
const MCP_TOOLS = new WeakSet<AnyTool>();

/**
 * Checks a tool's declaration: its name is a callable catalog name or a well-formed `mcp__` name
 * (external tools only from {@link defineMcpTool}), its parameters are an object schema, numbers are in range and capabilities and risk are from
 * their closed sets. Throws RunnerError TOOL_DEFINITION_INVALID (TOOL_UNKNOWN / TOOL_RESERVED for
 * the name) naming what is wrong and what is allowed.
 */
export function assertValidTool(tool: AnyTool): void {
  const name = tool.name;
  if (typeof name !== "string" || (!isKnownTool(name) && !isMcpToolName(name))) {
    throw new RunnerError(
      "TOOL_UNKNOWN",
      `Tool name ${JSON.stringify(name)} is not in the catalog and is not an external name mcp__<server>__<tool>`,
      { data: { tool: name } },
    );
  }
  if (isReservedTool(name)) {
    throw new RunnerError("TOOL_RESERVED", `Tool "${name}" is a reserved name and can never be implemented`, {
      data: { tool: name },
    });
  }
  const bad = (field: string, problem: string): never => {
    throw new RunnerError("TOOL_DEFINITION_INVALID", `Tool "${name}": ${field} ${problem}`, {
      data: { tool: name, field },
    });
  };
  if (typeof tool.description !== "string" || tool.description.trim() === "")
    bad("description", "must be non-empty");
  const schema = tool.parameters as { type?: unknown } | undefined;
  if (schema === null || typeof schema !== "object" || schema.type !== "object") {
    bad("parameters", "must be a TypeBox object schema (Type.Object), the shape models accept");
  }
  if (!(Number.isFinite(tool.timeoutSeconds) && tool.timeoutSeconds > 0)) {
    bad("timeoutSeconds", `must be a number > 0, got ${String(tool.timeoutSeconds)}`);
  }
  if (!(Number.isSafeInteger(tool.maxRetries) && tool.maxRetries >= 0)) {
    bad("maxRetries", `must be a whole number >= 0, got ${String(tool.maxRetries)}`);
  }
  if (!RISK_LEVELS.includes(tool.riskLevel)) {
    bad("riskLevel", `must be one of ${RISK_LEVELS.join(", ")}, got ${JSON.stringify(tool.riskLevel)}`);
  }
  for (const capability of tool.capabilities) {
    if (!CAPABILITIES.includes(capability)) {
      bad(
        "capabilities",
        `contains unknown ${JSON.stringify(capability)}; allowed: ${CAPABILITIES.join(", ")}`,
      );
    }
  }
  if (isMcpToolName(name) && !MCP_TOOLS.has(tool)) {
    bad("name", "is external (mcp__): build it with defineMcpTool so its undeclared risk is exec");
  }
}
