import {
  type Capability,
  capabilitiesOf,
  catalogEntry,
  maxRisk,
  type RiskLevel,
  riskOf,
} from "../catalog/index.js";

/**
 * What the tool itself says about one call (seed 003's argument-aware metadata), gathered by the
 * caller from `tool.isReadOnly(args)` and `tool.isDestructive(args)`: policy never calls tool code.
 */
export interface ArgumentRiskFacts {
  /** `isReadOnly(args)`; false raises the call to at least `write`. */
  readOnly?: boolean;
  /** `isDestructive(args)`; true raises the call to at least `exec` (it needs an allowlist or a person). */
  destructive?: boolean;
}

/** A risk classification with each source, for `policy explain` and the audit trail. */
export interface RiskClassification {
  /** The classified risk: the most severe of the three sources. */
  readonly level: RiskLevel;
  /** The catalog's static risk; undefined for external and unknown tools. */
  readonly staticRisk: RiskLevel | undefined;
  /** The declared risk as given (external tools without one count as exec, unknown ones as dangerous). */
  readonly declaredRisk: RiskLevel | undefined;
  /** The most severe risk the arguments imply, when they imply any. */
  readonly argumentRisk: RiskLevel | undefined;
  /** Why the arguments raised the risk (empty when they did not). */
  readonly reasons: readonly string[];
}

const NO_REASONS: readonly string[] = Object.freeze([]);

/**
 * The risk of one call: `max(static, declared, argument-derived)` by severity (seed 000). The
 * argument-derived part can only raise: a child-agent call (delegate_task, spawn_task, task and
 * workflow create) is as risky as the most risky tool in its `allowed_tools` argument (a task or
 * workflow whose child inherits the whole set is at least exec, delegate_task's static risk), a call the tool calls not read-only is at
 * least `write`, and a destructive one at least `exec`. External tools without a declared risk are
 * `exec`; names that are neither declared nor external are `dangerous`.
 */
export function classifyRisk(
  tool: string,
  args: unknown,
  declared?: RiskLevel,
  facts?: ArgumentRiskFacts,
): RiskLevel {
  return explainRisk(tool, args, declared, facts).level;
}

/** {@link classifyRisk} with each source and the reasons the arguments raised it. */
export function explainRisk(
  tool: string,
  args: unknown,
  declared?: RiskLevel,
  facts: ArgumentRiskFacts = {},
): RiskClassification {
  const staticRisk = catalogEntry(tool)?.risk;
  const base = riskOf(tool, declared);
  // Listing a tool (no arguments, no facts) is the hot path of every resolution.
  if (args === undefined && facts.readOnly !== false && facts.destructive !== true) {
    return { level: base, staticRisk, declaredRisk: declared, argumentRisk: undefined, reasons: NO_REASONS };
  }
  const reasons: string[] = [];
  let argumentRisk: RiskLevel | undefined;
  const raise = (level: RiskLevel, reason: string) => {
    argumentRisk = argumentRisk === undefined ? level : maxRisk(argumentRisk, level);
    reasons.push(reason);
  };
  const children = childTools(tool, args);
  if (children !== undefined && children.length > 0) {
    const worst = maxRisk(...children.map((child) => riskOf(child)));
    raise(
      worst,
      `it starts a child agent with ${children.join(", ")} (the most severe of those is ${worst})`,
    );
  }
  if (startsInheritingChild(tool, args)) {
    raise("exec", "it starts a child agent that inherits this run's tools (as delegate_task does)");
  }
  if (facts.readOnly === false) raise("write", "the tool says this call is not read-only");
  if (facts.destructive === true) raise("exec", "the tool says this call is destructive (irreversible)");
  const level = argumentRisk === undefined ? base : maxRisk(base, argumentRisk);
  return { level, staticRisk, declaredRisk: declared, argumentRisk, reasons };
}

/**
 * The capabilities of one call: the tool's static and declared ones, plus, for a child-agent tool,
 * every capability of the tools it hands its child (seed 000: "继承子代理能力").
 */
export function capabilitiesOfCall(
  tool: string,
  args: unknown,
  declared: readonly Capability[] = [],
): readonly Capability[] {
  const own = capabilitiesOf(tool, declared);
  const children = childTools(tool, args);
  if (children === undefined || children.length === 0) return own;
  return [...new Set([...own, ...children.flatMap((child) => capabilitiesOf(child))])];
}

/**
 * The tool names a child-agent call hands its child, or undefined when the tool has no child or the
 * argument is absent (the child then inherits the parent's set, which already passed policy).
 * delegate_task / spawn_task name them in `allowed_tools`; `task` with action create does too, and
 * `workflow` with action create in each step's `allowed_tools` (every step's tools count).
 */
export function childTools(tool: string, args: unknown): readonly string[] | undefined {
  if (args === null || typeof args !== "object") return undefined;
  const record = args as Record<string, unknown>;
  if (tool === "task" || tool === "workflow") {
    if (record.action !== "create") return undefined;
    const lists =
      tool === "task" ? [record.allowed_tools] : stepsOf(record).map((step) => step.allowed_tools);
    const named = lists.filter(Array.isArray).flat();
    return named.length > 0 ? named.filter((v): v is string => typeof v === "string") : undefined;
  }
  const argument = catalogEntry(tool)?.childToolsArgument;
  if (argument === undefined) return undefined;
  const value = record[argument];
  if (!Array.isArray(value)) return undefined;
  return value.filter((v): v is string => typeof v === "string");
}

function stepsOf(record: Record<string, unknown>): Record<string, unknown>[] {
  const steps = record.steps;
  if (!Array.isArray(steps)) return [];
  return steps.filter((s): s is Record<string, unknown> => s !== null && typeof s === "object");
}

/**
 * True when a call of `task` or `workflow` starts a child agent that inherits this run's whole tool
 * set (action create, and no `allowed_tools` — for a workflow, some step without one). Such a call
 * is as risky as delegate_task's static `exec`: the child may use whatever the parent may.
 */
function startsInheritingChild(tool: string, args: unknown): boolean {
  if ((tool !== "task" && tool !== "workflow") || args === null || typeof args !== "object") return false;
  const record = args as Record<string, unknown>;
  if (record.action !== "create") return false;
  if (tool === "task") return !Array.isArray(record.allowed_tools);
  const steps = stepsOf(record);
  return steps.length === 0 || steps.some((step) => !Array.isArray(step.allowed_tools));
}
