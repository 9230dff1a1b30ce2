import { type CatalogEntry, TOOL_CATALOG, type ToolName } from "./catalog.js";
import { isInProfile } from "./catalog-lookup.js";
import type { ToolProfile } from "./profiles.js";
import { TOOL_SECTIONS, type ToolSection } from "./tool-declaration.js";

/** The catalog grouped by section, in {@link TOOL_SECTIONS} order (for help text and docs). */
export function listToolSections(): readonly { section: ToolSection; tools: readonly CatalogEntry[] }[] {
  return TOOL_SECTIONS.map((section) => ({
    section,
    tools: TOOL_CATALOG.filter((e) => e.section === section),
  })).filter((group) => group.tools.length > 0);
}

/** The catalog's tool names in `profile`, in catalog order. */
export function toolsInProfile(profile: ToolProfile): ReadonlySet<ToolName> {
  return new Set(TOOL_CATALOG.map((e) => e.name).filter((name) => isInProfile(profile, name)));
}
