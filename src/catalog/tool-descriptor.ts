import type { Capability } from "./capabilities.js";
import { catalogEntry } from "./catalog-lookup.js";
import type { RiskLevel } from "./risk.js";
import type { AnyTool, ToolEnvironment } from "./tool.js";

/** A tool's state at one moment (seed 003's third filter layer: the tool's own self-check). */
export interface ToolState {
  /** `isReady()`: dependencies present. */
  readonly ready: boolean;
  /** `isEnabled(env)`: usable in this environment. */
  readonly enabled: boolean;
  /** Why, in words ("ready", "OPENAI_API_KEY is not set", "no outbound network"). */
  readonly detail: string;
}

/**
 * What policy needs to know about one candidate tool, as plain data: policy is pure and never calls
 * tool methods. Built from a live tool by {@link describeTool}, or from the catalog alone by
 * {@link describeCatalogTool}.
 */
export interface ToolDescriptor {
  /**
   * A catalog or `mcp__` name. Typed string: policy matches descriptors against names from config
   * and job payloads, which are open until checked.
   */
  readonly name: string;
  readonly description: string;
  /** Words tool_search matches besides name and description. */
  readonly keywords: readonly string[];
  /** The tool's declared risk; undefined when nothing is declared (catalog static / external exec). */
  readonly declaredRisk: RiskLevel | undefined;
  /** Declared capabilities, added to the catalog's static ones. */
  readonly declaredCapabilities: readonly Capability[];
  /** Load only through tool_search. */
  readonly shouldDefer: boolean;
  readonly state: ToolState;
}

/**
 * Snapshot of a live tool for policy. A throwing `readinessDetail` / `isEnabled` counts as not ready
 * / not enabled: a self-check that cannot answer must not keep the tool in.
 */
export function describeTool(tool: AnyTool, env: ToolEnvironment): ToolDescriptor {
  return {
    name: tool.name,
    description: tool.description,
    keywords: mergeKeywords(catalogEntry(tool.name)?.keywords ?? [], tool.keywords),
    declaredRisk: tool.riskLevel,
    declaredCapabilities: tool.capabilities,
    shouldDefer: tool.shouldDefer,
    state: stateOf(tool, env),
  };
}

/**
 * A catalog tool described from the catalog alone, with a state the caller vouches for (used by
 * `policy explain`, which does not load tool implementations). Undefined for names the catalog does
 * not declare.
 */
export function describeCatalogTool(name: string, state: ToolState): ToolDescriptor | undefined {
  const entry = catalogEntry(name);
  if (!entry) return undefined;
  return {
    name: entry.name,
    description: entry.description,
    keywords: entry.keywords,
    declaredRisk: undefined,
    declaredCapabilities: [],
    shouldDefer: false,
    state,
  };
}

function stateOf(tool: AnyTool, env: ToolEnvironment): ToolState {
  let readiness: { ready: boolean; detail: string };
  try {
    readiness = tool.readinessDetail();
  } catch (err) {
    readiness = {
      ready: false,
      detail: `readiness check failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  let enabled: boolean;
  try {
    enabled = tool.isEnabled(env) === true;
  } catch {
    enabled = false;
  }
  const detail = !readiness.ready
    ? readiness.detail
    : enabled
      ? readiness.detail
      : (offlineReason(tool, env) ?? "disabled in this environment (isEnabled returned false)");
  return { ready: readiness.ready === true, enabled, detail };
}

/** "no outbound network: <why>" when the missing network is what disables the tool and the worker said why. */
function offlineReason(tool: AnyTool, env: ToolEnvironment): string | undefined {
  if (env.networkAvailable || env.networkUnavailableReason === undefined) return undefined;
  try {
    if (tool.isEnabled({ ...env, networkAvailable: true }) !== true) return undefined;
  } catch {
    return undefined;
  }
  return `no outbound network: ${env.networkUnavailableReason}`;
}

function mergeKeywords(a: readonly string[], b: readonly string[]): readonly string[] {
  if (b.length === 0) return a;
  return [...new Set([...a, ...b])];
}
