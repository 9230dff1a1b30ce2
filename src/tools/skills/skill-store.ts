import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { type ToolReadiness, type ToolResult, toolFailure } from "../../catalog/index.js";

/**
 * Skills on disk: a skill is a folder `<skills dir>/<name>/` holding a `SKILL.md` whose YAML front
 * matter gives at least `description` (and optionally `name`, which must match the folder). A file
 * `.disabled` in the folder disables the skill. Folders starting with "." are the store's own
 * (staging of installs) and never skills.
 */

/** The file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";
/** The marker of a disabled skill. */
export const DISABLED_MARKER = ".disabled";
/** What skill_install records about an installed skill. */
export const INSTALL_RECORD = ".install.json";

const SKILL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** A skill as listed. */
export interface SkillInfo {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  /** Absolute path of the skill's folder. */
  readonly dir: string;
}

/** Why `name` cannot be a skill name, or undefined when it can. */
export function skillNameProblem(name: string): string | undefined {
  return SKILL_NAME.test(name)
    ? undefined
    : `skill name ${JSON.stringify(name)} must be 1-64 characters: lower-case letters, digits, - and _, starting with a letter or digit`;
}

/** Readiness of a skills tool: a skills directory must be configured. */
export function skillsReadiness(skillsDir: string | undefined): ToolReadiness {
  return skillsDir
    ? { ready: true, detail: `skills under ${skillsDir}` }
    : { ready: false, detail: "no skills directory is configured (tools.skills.dir)" };
}

/** Parses a SKILL.md: its front matter's description (required) and name (optional). */
export function parseSkillFile(
  text: string,
): { ok: true; name?: string; description: string } | { ok: false; problem: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!match)
    return { ok: false, problem: `${SKILL_FILE} must start with YAML front matter between --- lines` };
  let meta: unknown;
  try {
    meta = parseYaml(match[1] ?? "");
  } catch (err) {
    return {
      ok: false,
      problem: `the front matter of ${SKILL_FILE} is not valid YAML: ${(err as Error).message}`,
    };
  }
  const fields = (meta ?? {}) as Record<string, unknown>;
  if (typeof fields.description !== "string" || fields.description.trim() === "") {
    return { ok: false, problem: `the front matter of ${SKILL_FILE} needs a non-empty "description"` };
  }
  const name = typeof fields.name === "string" ? fields.name : undefined;
  return { ok: true, description: fields.description.trim(), ...(name ? { name } : {}) };
}

/** Every skill under `skillsDir`, sorted by name; folders without a valid SKILL.md are skipped. */
export async function listSkills(skillsDir: string): Promise<SkillInfo[]> {
  let entries: string[];
  try {
    entries = await readdir(skillsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const skills: SkillInfo[] = [];
  for (const name of entries.sort()) {
    if (name.startsWith(".") || skillNameProblem(name)) continue;
    const skill = await readSkill(skillsDir, name);
    if (skill) skills.push(skill);
  }
  return skills;
}

/** One skill, or undefined when there is no valid skill of that name. */
export async function readSkill(skillsDir: string, name: string): Promise<SkillInfo | undefined> {
  const dir = join(skillsDir, name);
  const stat = await lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return undefined;
  const text = await readFile(join(dir, SKILL_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = parseSkillFile(text);
  if (!parsed.ok) return undefined;
  const enabled = !(await lstat(join(dir, DISABLED_MARKER)).catch(() => undefined));
  return { name, description: parsed.description, enabled, dir };
}

/**
 * The installed skill a tool call names, or the failure the tool returns: no skills directory
 * (`not_ready`), a name that cannot be a skill's (`validation`), no such skill (`business`).
 */
export async function findInstalledSkill(
  skillsDir: string | undefined,
  name: string,
): Promise<{ ok: true; skillsDir: string; skill: SkillInfo } | { ok: false; result: ToolResult }> {
  if (!skillsDir) return { ok: false, result: toolFailure("not_ready", skillsReadiness(skillsDir).detail) };
  const badName = skillNameProblem(name);
  if (badName) {
    return {
      ok: false,
      result: toolFailure("validation", `name: ${badName}`, {
        fields: [{ field: "name", problem: badName }],
      }),
    };
  }
  const skill = await readSkill(skillsDir, name);
  if (!skill) return { ok: false, result: toolFailure("business", `no skill named "${name}" is installed`) };
  return { ok: true, skillsDir, skill };
}
