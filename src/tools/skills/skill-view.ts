import Type from "typebox";
import { defineTool, type Tool, toolFailure, toolSuccess } from "../../catalog/index.js";
import { readHeldFile } from "../beneath/held-read.js";
import { resolveInside } from "../inside-path.js";
import { findInstalledSkill, SKILL_FILE, skillsReadiness } from "./skill-store.js";

/** Most characters of a skill file returned. */
export const SKILL_VIEW_MAX_CHARS = 100_000;

const SkillViewParams = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, description: "The skill's name" }),
    file: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: `A file inside the skill's folder, relative to it (default ${SKILL_FILE})`,
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `skill_view`: a skill's SKILL.md, or another file of its folder. The file's real path must stay
 * inside the skill's folder (a symlink or `..` cannot reach anything else).
 */
export function createSkillViewTool(skillsDir: string | undefined): Tool<typeof SkillViewParams> {
  return defineTool({
    name: "skill_view",
    description: "Show a skill's SKILL.md (or another file of the skill).",
    parameters: SkillViewParams,
    riskLevel: "read_only",
    idempotent: true,
    readinessDetail: () => skillsReadiness(skillsDir),
    async execute(args) {
      const found = await findInstalledSkill(skillsDir, args.name);
      if (!found.ok) return found.result;
      const { skill } = found;
      const inside = await resolveInside(skill.dir, args.file ?? SKILL_FILE);
      if (!inside.ok) return toolFailure("denied", `skill_view: ${inside.problem}`);
      // A skill file is text the model reads; 4 bytes a character bounds what the cut below can use.
      const read = await readHeldFile(inside.path, SKILL_VIEW_MAX_CHARS * 4);
      if (read.kind === "too_large") {
        return toolFailure("business", `${args.file} is larger than ${SKILL_VIEW_MAX_CHARS * 4} bytes`);
      }
      if (read.kind !== "file") return toolFailure("business", `${args.file} is not a file`);
      const text = read.bytes.toString("utf8");
      const cut = text.length > SKILL_VIEW_MAX_CHARS;
      const header = `Skill ${skill.name}${skill.enabled ? "" : " (disabled)"}: ${skill.description}`;
      const body = cut
        ? `${text.slice(0, SKILL_VIEW_MAX_CHARS)}\n[cut at ${SKILL_VIEW_MAX_CHARS} characters]`
        : text;
      return toolSuccess(`${header}\n\n${body}`, {
        name: skill.name,
        enabled: skill.enabled,
        truncated: cut,
      });
    },
  });
}
