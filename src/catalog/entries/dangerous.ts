import type { ToolDeclaration } from "../tool-declaration.js";

/** The catalog's tools that install code or grant lasting privileges (risk dangerous). */
export const DANGEROUS_TOOLS = [
  {
    name: "cronjob",
    section: "automation",
    risk: "dangerous",
    capabilities: ["scheduler.write"],
    minProfile: "full",
    description: "Create and manage scheduled jobs",
    keywords: ["cron", "schedule", "timer"],
  },
  {
    name: "skill_install",
    section: "skills",
    risk: "dangerous",
    capabilities: ["skill.install", "network.outbound", "fs.write"],
    minProfile: "full",
    description: "Install an external skill package",
    keywords: ["skill", "package", "plugin"],
    pathArguments: { fields: ["path"], access: "read" },
  },
  {
    name: "skill_manage",
    section: "skills",
    risk: "dangerous",
    capabilities: ["skill.write", "fs.write"],
    minProfile: "full",
    description: "Manage or delete skills",
    keywords: ["skill", "remove"],
  },
] as const satisfies readonly ToolDeclaration[];
