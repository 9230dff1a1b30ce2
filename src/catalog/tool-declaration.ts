import type { Capability } from "./capabilities.js";
import type { PathAccess } from "./path-access.js";
import type { ToolProfile } from "./profiles.js";
import type { RiskLevel } from "./risk.js";

/**
 * Sections of the catalog (seed 002 `CORE_TOOL_SECTION_ORDER`, adapted to seed 000's tools), in the
 * order help text and docs list them.
 */
export const TOOL_SECTIONS = [
  "fs",
  "git",
  "runtime",
  "web",
  "memory",
  "knowledge",
  "sessions",
  "messaging",
  "automation",
  "agents",
  "media",
  "skills",
  "meta",
] as const;
export type ToolSection = (typeof TOOL_SECTIONS)[number];

/**
 * The shape of one declared tool. Each entry of the catalog (TOOL_CATALOG) is one object with these named
 * fields; {@link CatalogEntry} is the same with the name narrowed to {@link ToolName}.
 */
export interface ToolDeclaration {
  readonly name: string;
  readonly section: ToolSection;
  /** Static risk (seed 000's `_TOOL_RISK_MAP`). */
  readonly risk: RiskLevel;
  /** Static capabilities (seed 000's `TOOL_CAPABILITIES`). */
  readonly capabilities: readonly Capability[];
  /**
   * The smallest profile that contains the tool. Profiles nest (minimal ⊂ messaging ⊂ coding ⊂
   * full), so membership is every profile from this one on.
   */
  readonly minProfile: ToolProfile;
  /** One line for help text, docs and tool_search. */
  readonly description: string;
  /** Extra words tool_search matches. */
  readonly keywords: readonly string[];
  /** Declared but never callable (seed 000 reserves the name). */
  readonly reserved?: true;
  /** Never deferred: the model always sees it (tool_search itself). */
  readonly alwaysLoaded?: true;
  /**
   * Runs commands or code on the exec host (`tools.exec.host`): seed 000's elevation, allow-always
   * records and the host a call runs on apply to these tools only. Not the same as risk `exec`,
   * which the sub-agent tools also have.
   */
  readonly execClass?: true;
  /**
   * Arguments holding a file path, and whether the tool reads or writes through them: the guard
   * checks each through the path fence before the gate decides.
   */
  readonly pathArguments?: { readonly fields: readonly string[]; readonly access: PathAccess };
  /**
   * Carried out by the run loop, not by the tool alone: it starts, reads or stops other runs, or parks
   * the run to ask a person (the sub-agent tools and clarify).
   */
  readonly runsInLoop?: true;
  /** Starts or manages sub-agent runs (delegate_task, spawn_task, task, workflow). */
  readonly subagent?: true;
  /**
   * The tool starts a child agent whose own tools are what it can really do (seed 000: "继承子代理能力").
   * Its static capability is `agent.dispatch`; the child's tools, passed in the argument named here,
   * raise its risk and capabilities per call (see policy's classifyRisk).
   */
  readonly childToolsArgument?: "allowed_tools";
}
