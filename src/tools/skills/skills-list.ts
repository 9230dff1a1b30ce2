import Type from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { listSkills, skillsReadiness } from "./skill-store.js";

const SkillsListParams = Type.Object(
  {
    include_disabled: Type.Optional(
      Type.Boolean({ description: "Also list disabled skills (default false)" }),
    ),
  },
  { additionalProperties: false },
);

/** `skills_list`: the installed skills with their descriptions (enabled ones unless asked). */
export function createSkillsListTool(skillsDir: string | undefined): Tool<typeof SkillsListParams> {
  return defineTool({
    name: "skills_list",
    description: "List the installed skills (name, description, enabled).",
    parameters: SkillsListParams,
    riskLevel: "read_only",
    idempotent: true,
    readinessDetail: () => skillsReadiness(skillsDir),
    async execute(args) {
      if (!skillsDir) return toolFailure("not_ready", skillsReadiness(skillsDir).detail);
      const skills = (await listSkills(skillsDir)).filter((s) => args.include_disabled || s.enabled);
      if (skills.length === 0) return toolSuccess("No skills are installed.", { skills: [] });
      const lines = skills.map((s) => `- ${s.name}${s.enabled ? "" : " (disabled)"}: ${s.description}`);
      return toolSuccess(lines.join("\n"), {
        skills: skills.map(({ name, description, enabled }) => ({ name, description, enabled })),
      });
    },
  });
}
