import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Type from "typebox";
import { defineTool, type Tool, type ToolResult, toolSuccess } from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";
import { DISABLED_MARKER, findInstalledSkill, skillsReadiness } from "./skill-store.js";

/** What skill_manage does to a skill. */
export const SKILL_MANAGE_ACTIONS = ["enable", "disable", "remove"] as const;
export type SkillManageAction = (typeof SKILL_MANAGE_ACTIONS)[number];

const SkillManageParams = Type.Object(
  {
    action: Type.Enum(SKILL_MANAGE_ACTIONS, { description: "enable, disable or remove (delete) the skill" }),
    name: Type.String({ minLength: 1, maxLength: 64, description: "The skill's name" }),
  },
  { additionalProperties: false },
);

/**
 * `skill_manage` (dangerous): enable, disable or remove an installed skill. Removal first renames
 * the folder out of the store (one atomic step, so a crash never leaves half a skill listed), then
 * deletes it. Enable and disable are idempotent; a repeated remove reports that the skill is gone.
 */
export function createSkillManageTool(skillsDir: string | undefined): Tool<typeof SkillManageParams> {
  return defineTool({
    name: "skill_manage",
    description: "Enable, disable or remove an installed skill.",
    parameters: SkillManageParams,
    riskLevel: "dangerous",
    readinessDetail: () => skillsReadiness(skillsDir),
    isDestructive: (args) => args.action === "remove",
    async execute(args): Promise<ToolResult> {
      const found = await findInstalledSkill(skillsDir, args.name);
      if (!found.ok) return found.result;
      const { skill } = found;
      const action = args.action;
      switch (action) {
        case "enable":
          await rm(join(skill.dir, DISABLED_MARKER), { force: true });
          return toolSuccess(`Skill ${skill.name} is enabled.`, { name: skill.name, enabled: true });
        case "disable":
          await writeFile(join(skill.dir, DISABLED_MARKER), "disabled by skill_manage\n");
          return toolSuccess(`Skill ${skill.name} is disabled.`, { name: skill.name, enabled: false });
        case "remove": {
          const doomed = join(found.skillsDir, `.removed-${skill.name}-${randomBytes(4).toString("hex")}`);
          await rename(skill.dir, doomed);
          await rm(doomed, { recursive: true, force: true });
          return toolSuccess(`Skill ${skill.name} was removed.`, { name: skill.name, removed: true });
        }
        default:
          return assertNever(action);
      }
    },
  });
}
