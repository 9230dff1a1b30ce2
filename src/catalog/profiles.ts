/** Tool profiles of seed 000 (`tools.profile`), from the smallest set to all tools. */
export const TOOL_PROFILES = ["minimal", "messaging", "coding", "full"] as const;
export type ToolProfile = (typeof TOOL_PROFILES)[number];
