import type { Capability } from "./capabilities.js";
import type { ToolProfile } from "./profiles.js";
import type { RiskLevel } from "./risk.js";

/**
 * Sections of the catalog (seed 002 `CORE_TOOL_SECTION_ORDER`, adapted to seed 000's tools), in the
 * order help text and docs list them.
 */
export const TOOL_SECTIONS = [
  "fs",
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

/** One declared tool. */
export interface CatalogEntry {
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
  /**
   * The tool starts a child agent whose own tools are what it can really do (seed 000: "继承子代理能力").
   * Its static capability is `agent.dispatch`; the child's tools, passed in the argument named here,
   * raise its risk and capabilities per call (see policy's classifyRisk).
   */
  readonly childToolsArgument?: "allowed_tools";
  /** Never deferred: the model always sees it (tool_search itself). */
  readonly alwaysLoaded?: true;
}

function entry(
  name: string,
  section: ToolSection,
  risk: RiskLevel,
  capabilities: readonly Capability[],
  minProfile: ToolProfile,
  description: string,
  keywords: readonly string[] = [],
  extra: Pick<CatalogEntry, "reserved" | "childToolsArgument" | "alwaysLoaded"> = {},
): CatalogEntry {
  return { name, section, risk, capabilities, minProfile, description, keywords, ...extra };
}

/**
 * Every tool of seed 000's catalog, plus tool_search (seed 003). This table is the only list of tool
 * names: risk, capabilities, profiles, sections, `isKnownTool` and help text are derived from it.
 *
 * Profiles follow seed 000's table: minimal = the read-only tools + clarify, message, notify, todo;
 * messaging = minimal + image_generate, memory, text_to_speech, vision_analyze; coding = messaging +
 * write_file, edit_file, knowledge_index, patch, task, workflow; full = every tool. The seed lists
 * vision_analyze as a messaging addition although it is read-only, so minimal is read as "the
 * read-only tools except vision_analyze" (the smaller set, and the only reading under which that
 * row of the seed's table means something).
 */
export const TOOL_CATALOG: readonly CatalogEntry[] = [
  // read_only
  entry("read_file", "fs", "read_only", ["fs.read"], "minimal", "Read a file's contents", [
    "open",
    "cat",
    "view",
  ]),
  entry("list_dir", "fs", "read_only", ["fs.read"], "minimal", "List a directory's entries", [
    "ls",
    "folder",
    "files",
  ]),
  entry("search_files", "fs", "read_only", ["fs.read"], "minimal", "Search file contents", [
    "grep",
    "find",
    "text",
  ]),
  entry(
    "read_spill",
    "fs",
    "read_only",
    ["fs.read"],
    "minimal",
    "Read the full text of a truncated tool result",
    ["spill", "truncated", "overflow"],
  ),
  entry(
    "knowledge_search",
    "knowledge",
    "read_only",
    ["knowledge.read"],
    "minimal",
    "Search the knowledge base",
    ["docs", "retrieval", "rag"],
  ),
  entry("session_search", "sessions", "read_only", ["session.read"], "minimal", "Search past sessions", [
    "history",
    "conversation",
  ]),
  entry("skills_list", "skills", "read_only", ["skill.read"], "minimal", "List installed skills", ["skill"]),
  entry("skill_view", "skills", "read_only", ["skill.read"], "minimal", "Show a skill's details", ["skill"]),
  entry(
    "agents_list",
    "agents",
    "read_only",
    [],
    "minimal",
    "Reserved name; not implemented, never callable",
    [],
    {
      reserved: true,
    },
  ),
  entry(
    "agents_route",
    "agents",
    "read_only",
    [],
    "minimal",
    "Reserved name; not implemented, never callable",
    [],
    {
      reserved: true,
    },
  ),
  entry("web_fetch", "web", "read_only", ["network.outbound"], "minimal", "Fetch a web page", [
    "http",
    "url",
    "download",
    "page",
  ]),
  entry("web_search", "web", "read_only", ["network.outbound"], "minimal", "Search the web", [
    "internet",
    "query",
  ]),
  entry("vision_analyze", "media", "read_only", ["media.read"], "messaging", "Analyse an image", [
    "image",
    "picture",
    "photo",
    "ocr",
  ]),
  entry(
    "tool_search",
    "meta",
    "read_only",
    [],
    "minimal",
    "Find and load deferred tools: select:A,B, an exact name, an mcp__ prefix or keywords (+term = required)",
    ["tools", "discover", "load"],
    { alwaysLoaded: true },
  ),
  // write
  entry("write_file", "fs", "write", ["fs.write"], "coding", "Write a file", ["create", "save"]),
  entry("edit_file", "fs", "write", ["fs.read", "fs.write"], "coding", "Edit a file in place", [
    "replace",
    "modify",
  ]),
  entry("patch", "fs", "write", ["fs.read", "fs.write"], "coding", "Apply a patch to files", [
    "diff",
    "modify",
  ]),
  entry(
    "knowledge_index",
    "knowledge",
    "write",
    ["knowledge.write", "fs.read"],
    "coding",
    "Build the knowledge base index",
    ["docs", "index", "embed"],
  ),
  entry("todo", "automation", "write", ["task.write"], "minimal", "Manage a to-do list", [
    "checklist",
    "plan",
  ]),
  entry("task", "automation", "write", ["task.write"], "coding", "Create and schedule tasks", [
    "job",
    "plan",
  ]),
  entry("workflow", "automation", "write", ["workflow.write"], "coding", "Orchestrate a workflow", [
    "pipeline",
    "steps",
  ]),
  entry("notify", "messaging", "write", ["message.send"], "minimal", "Send a notification", [
    "alert",
    "email",
  ]),
  entry("message", "messaging", "write", ["message.send"], "minimal", "Send a message", [
    "chat",
    "reply",
    "send",
  ]),
  entry("clarify", "messaging", "write", ["message.ask"], "minimal", "Ask the user a clarifying question", [
    "question",
    "ask",
  ]),
  entry(
    "memory",
    "memory",
    "write",
    ["memory.read", "memory.write"],
    "messaging",
    "Read and write memories",
    ["remember", "recall"],
  ),
  entry(
    "image_generate",
    "media",
    "write",
    ["media.generate", "network.outbound"],
    "messaging",
    "Generate an image",
    ["image", "picture", "draw"],
  ),
  entry(
    "text_to_speech",
    "media",
    "write",
    ["media.generate", "network.outbound"],
    "messaging",
    "Convert text to speech",
    ["tts", "audio", "voice"],
  ),
  // exec
  entry("exec", "runtime", "exec", ["process.exec"], "full", "Run a process or shell command", [
    "shell",
    "bash",
    "command",
    "run",
  ]),
  entry("execute_code", "runtime", "exec", ["code.exec", "process.exec"], "full", "Run a code snippet", [
    "python",
    "script",
    "run",
  ]),
  entry(
    "process",
    "runtime",
    "exec",
    ["process.exec", "process.manage"],
    "full",
    "Manage processes (start, signal, stdin)",
    ["kill", "signal", "stdin", "background"],
  ),
  entry(
    "delegate_task",
    "agents",
    "exec",
    ["agent.dispatch"],
    "full",
    "Delegate a task to a sub-agent and wait for it",
    ["subagent", "child", "delegate"],
    { childToolsArgument: "allowed_tools" },
  ),
  entry(
    "spawn_task",
    "agents",
    "exec",
    ["agent.dispatch"],
    "full",
    "Start a background sub-agent task",
    ["subagent", "child", "background"],
    { childToolsArgument: "allowed_tools" },
  ),
  // dangerous
  entry(
    "cronjob",
    "automation",
    "dangerous",
    ["scheduler.write"],
    "full",
    "Create and manage scheduled jobs",
    ["cron", "schedule", "timer"],
  ),
  entry(
    "skill_install",
    "skills",
    "dangerous",
    ["skill.install", "network.outbound", "fs.write"],
    "full",
    "Install an external skill package",
    ["skill", "package", "plugin"],
  ),
  entry(
    "skill_manage",
    "skills",
    "dangerous",
    ["skill.write", "fs.write"],
    "full",
    "Manage or delete skills",
    ["skill", "remove"],
  ),
];
