import { DANGEROUS_TOOLS } from "./entries/dangerous.js";
import { EXEC_TOOLS } from "./entries/exec.js";
import { READ_ONLY_TOOLS } from "./entries/read-only.js";
import { WRITE_TOOLS } from "./entries/write.js";
import type { ToolDeclaration } from "./tool-declaration.js";

/**
 * Every tool of seed 000's catalog, plus tool_search (seed 003) and the read-only git tools (git_status, git_log,
 * git_diff, git_show: so reading history needs no exec). This table is the only list of tool
 * names: risk, capabilities, profiles, sections, `isKnownTool`, help text and every set of tools
 * (exec class, path arguments, run-loop and sub-agent tools) are derived from it.
 *
 * Profiles follow seed 000's table: minimal = the read-only tools + clarify, message, notify, todo;
 * messaging = minimal + image_generate, memory, text_to_speech, vision_analyze; coding = messaging +
 * write_file, edit_file, knowledge_index, patch, task, workflow; full = every tool. The seed lists
 * vision_analyze as a messaging addition although it is read-only, so minimal is read as "the
 * read-only tools except vision_analyze" (the smaller set, and the only reading under which that
 * row of the seed's table means something).
 */
export const DECLARED_TOOLS = [
  ...READ_ONLY_TOOLS,
  ...WRITE_TOOLS,
  ...EXEC_TOOLS,
  ...DANGEROUS_TOOLS,
] as const satisfies readonly ToolDeclaration[];

/** The name of a tool the catalog declares (reserved names included). */
export type ToolName = (typeof DECLARED_TOOLS)[number]["name"];

/** One declared tool, its name typed. */
export type CatalogEntry = ToolDeclaration & { readonly name: ToolName };

/**
 * The catalog as one entry type, for code that reads any field of any tool. {@link DECLARED_TOOLS}
 * keeps each entry's literal type, from which {@link ToolName} and the tool sets are derived.
 */
export const TOOL_CATALOG: readonly CatalogEntry[] = DECLARED_TOOLS;
