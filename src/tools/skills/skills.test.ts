import { mkdir, mkdtemp, readdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import { Journal } from "../../journal/index.js";
import { createSkillManageTool } from "./skill-manage.js";
import { parseSkillFile } from "./skill-store.js";
import { createSkillViewTool } from "./skill-view.js";
import { createSkillsListTool } from "./skills-list.js";

let dir: string;

async function skill(name: string, description: string, extra: Record<string, string> = {}) {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(
    join(dir, name, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\nSteps.\n`,
  );
  for (const [file, text] of Object.entries(extra)) await writeFile(join(dir, name, file), text);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "skills-"));
  await skill("triage-inbox", "Sort the inbox by urgency", { "notes.md": "extra notes" });
  await skill("weekly-report", "Write the weekly report");
  await mkdir(join(dir, "not-a-skill"));
  await writeFile(join(dir, "not-a-skill", "README.md"), "no SKILL.md here");
});

describe("parseSkillFile", () => {
  it.each([
    ["---\ndescription: d\n---\nbody", { ok: true, description: "d" }],
    ["---\nname: n\ndescription: d\n---\n", { ok: true, name: "n", description: "d" }],
    [
      "no front matter",
      { ok: false, problem: "SKILL.md must start with YAML front matter between --- lines" },
    ],
    [
      "---\nname: n\n---\n",
      { ok: false, problem: 'the front matter of SKILL.md needs a non-empty "description"' },
    ],
  ])("reads %j", (text, expected) => {
    expect(parseSkillFile(text)).toEqual(expected);
  });
});

describe("skills_list", () => {
  it("lists enabled skills with their descriptions and skips folders without SKILL.md", async () => {
    const result = await callTool(createSkillsListTool(dir), {});
    expect(result).toMatchObject({
      success: true,
      output: "- triage-inbox: Sort the inbox by urgency\n- weekly-report: Write the weekly report",
    });
  });

  it("is not ready without a skills directory and says which key", async () => {
    const tool = createSkillsListTool(undefined);
    expect(tool.readinessDetail()).toEqual({
      ready: false,
      detail: "no skills directory is configured (tools.skills.dir)",
    });
    expect(await callTool(tool, {})).toMatchObject({ errorKind: "not_ready" });
  });

  it("rejects bad arguments naming the field", async () => {
    const result = await callTool(createSkillsListTool(dir), { include_disabled: "yes" });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain("include_disabled:");
  });
});

describe("skill_view", () => {
  it("shows a skill's SKILL.md and another file of the skill", async () => {
    const view = createSkillViewTool(dir);
    const main = await callTool(view, { name: "triage-inbox" });
    expect(main.output).toContain("Skill triage-inbox: Sort the inbox by urgency");
    expect(main.output).toContain("# triage-inbox\nSteps.");
    expect((await callTool(view, { name: "triage-inbox", file: "notes.md" })).output).toContain(
      "extra notes",
    );
  });

  it("refuses a file outside the skill's folder, by .. or by symlink", async () => {
    const view = createSkillViewTool(dir);
    await writeFile(join(dir, "secret.txt"), "secret");
    await symlink(join(dir, "secret.txt"), join(dir, "weekly-report", "link.md"));
    for (const file of ["../secret.txt", "link.md", "/etc/passwd"]) {
      const result = await callTool(view, { name: "weekly-report", file });
      expect(result, file).toMatchObject({ success: false, errorKind: "denied" });
    }
  });

  it.each([
    [{}, "name: is required"],
    [{ name: "../etc" }, "name: skill name"],
    [{ name: "x", file: "" }, "file:"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createSkillViewTool(dir), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it("says when no skill has the name", async () => {
    const result = await callTool(createSkillViewTool(dir), { name: "nope" });
    expect(result).toMatchObject({
      success: false,
      errorKind: "business",
      error: 'no skill named "nope" is installed',
    });
  });
});

describe("skill_manage", () => {
  const redis: Redis = testRedisClient();
  const prefix = uniquePrefix("skill-manage");
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it("disables and enables a skill, which skills_list then hides and shows", async () => {
    const manage = createSkillManageTool(dir);
    const list = createSkillsListTool(dir);
    expect((await callTool(manage, { action: "disable", name: "weekly-report" })).success).toBe(true);
    expect((await callTool(list, {})).output).not.toContain("weekly-report");
    expect((await callTool(list, { include_disabled: true })).output).toContain("weekly-report (disabled)");
    expect((await callTool(manage, { action: "enable", name: "weekly-report" })).success).toBe(true);
    expect((await callTool(list, {})).output).toContain("weekly-report: Write");
  });

  it("removes a skill and leaves nothing of it behind", async () => {
    const result = await callTool(createSkillManageTool(dir), { action: "remove", name: "triage-inbox" });
    expect(result).toMatchObject({ success: true, output: "Skill triage-inbox was removed." });
    expect((await readdir(dir)).sort()).toEqual(["not-a-skill", "weekly-report"]);
  });

  it("is dangerous, and destructive only for remove", () => {
    const manage = createSkillManageTool(dir);
    expect(manage.riskLevel).toBe("dangerous");
    expect(manage.isDestructive({ action: "remove", name: "x" })).toBe(true);
    expect(manage.isDestructive({ action: "disable", name: "x" })).toBe(false);
  });

  it.each([
    [{ name: "x" }, "action: is required"],
    [{ action: "delete", name: "x" }, 'action: must be one of "enable", "disable", "remove"'],
    [{ action: "remove", name: "../x" }, "name: skill name"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createSkillManageTool(dir), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });

  it("replays a journalled removal without touching the store again", async () => {
    const manage = createSkillManageTool(dir);
    const journal = new Journal({ redis, keyPrefix: prefix });
    const args = { action: "remove", name: "weekly-report" };
    const ctx = toolContext(manage, args);
    const first = await journalledCall(journal, "run-skills", manage, args, ctx);
    // The skill comes back (someone reinstalled it); the replay must not remove it a second time.
    await skill("weekly-report", "Reinstalled");
    const second = await journalledCall(journal, "run-skills", manage, args, ctx);
    expect(first.replay).toBe(false);
    expect(second).toEqual({ result: first.result, replay: true });
    expect((await callTool(createSkillsListTool(dir), {})).output).toContain("weekly-report: Reinstalled");
  });
});
