import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { create as createTar } from "tar";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import { Journal } from "../../journal/index.js";
import { ManualClock } from "../../shared/index.js";
import { createSkillInstallTool } from "./skill-install.js";
import { createSkillsListTool } from "./skills-list.js";

let workspace: string;
let skillsDir: string;
const clock = new ManualClock(Date.UTC(2025, 0, 2));

const SKILL_MD = "---\nname: pdf-tools\ndescription: Work with PDF files\n---\nUse pdftotext.\n";

function tool() {
  return createSkillInstallTool({ skillsDir, clock });
}

function sri(bytes: Buffer): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** Packs `files` (relative path → content) as npm would: every entry under package/. */
async function tarball(name: string, files: Record<string, string>, links: Record<string, string> = {}) {
  const src = await mkdtemp(join(tmpdir(), "pkg-"));
  await mkdir(join(src, "package"), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(src, "package", path, ".."), { recursive: true });
    await writeFile(join(src, "package", path), text);
  }
  for (const [path, target] of Object.entries(links)) await symlink(target, join(src, "package", path));
  const file = join(workspace, name);
  await createTar({ file, cwd: src, gzip: true, portable: true }, ["package"]);
  return { file: name, integrity: sri(await readFile(file)) };
}

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "ws-"));
  skillsDir = join(await mkdtemp(join(tmpdir(), "store-")), "skills");
  await mkdir(join(workspace, "pdf-tools"));
  await writeFile(join(workspace, "pdf-tools", "SKILL.md"), SKILL_MD);
  await writeFile(join(workspace, "pdf-tools", "run.sh"), 'pdftotext "$1" -\n');
});

describe("skill_install from a folder", () => {
  it("installs a skill folder that skills_list then shows, recording where it came from", async () => {
    const result = await callTool(tool(), { source: "folder", path: "pdf-tools" }, { workspace });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^Installed skill pdf-tools from folder pdf-tools \(2 files, sha256-/);
    expect((await callTool(createSkillsListTool(skillsDir), {})).output).toBe(
      "- pdf-tools: Work with PDF files",
    );
    const record = JSON.parse(await readFile(join(skillsDir, "pdf-tools", ".install.json"), "utf8"));
    expect(record).toMatchObject({
      v: 1,
      source: "folder",
      files: 2,
      installedAt: "2025-01-02T00:00:00.000Z",
    });
    expect(await readdir(skillsDir)).toEqual(["pdf-tools"]);
  });

  it("refuses a folder with a symbolic link in it and installs nothing", async () => {
    await symlink("/etc/passwd", join(workspace, "pdf-tools", "passwd"));
    const result = await callTool(tool(), { source: "folder", path: "pdf-tools" }, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (!result.success) expect(result.error).toContain("passwd is a symbolic link");
    expect(await readdir(skillsDir)).toEqual([]);
  });

  it("refuses a folder outside the workspace", async () => {
    const outside = await mkdtemp(join(tmpdir(), "outside-"));
    const result = await callTool(tool(), { source: "folder", path: outside }, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    if (!result.success) expect(result.error).toContain("is outside");
  });

  it("refuses a folder without a valid SKILL.md", async () => {
    await mkdir(join(workspace, "empty"));
    const result = await callTool(tool(), { source: "folder", path: "empty" }, { workspace });
    expect(result).toMatchObject({
      success: false,
      error: "skill_install refused empty: it has no SKILL.md",
    });
  });

  it("does not overwrite an installed skill unless told to replace it", async () => {
    await callTool(tool(), { source: "folder", path: "pdf-tools" }, { workspace });
    await writeFile(join(workspace, "pdf-tools", "SKILL.md"), SKILL_MD.replace("Work with", "Handle"));
    const again = await callTool(
      tool(),
      { source: "folder", path: "pdf-tools" },
      {
        workspace,
        call: { toolName: "skill_install", callIndex: 1, params: {} },
      },
    );
    expect(again).toMatchObject({ success: false, errorKind: "business" });
    const replaced = await callTool(
      tool(),
      { source: "folder", path: "pdf-tools", replace: true },
      {
        workspace,
        call: { toolName: "skill_install", callIndex: 2, params: {} },
      },
    );
    expect(replaced.success).toBe(true);
    expect((await callTool(createSkillsListTool(skillsDir), {})).output).toBe(
      "- pdf-tools: Handle PDF files",
    );
  });

  it("is a no-op when the same call runs again (idempotent by its key)", async () => {
    const args = { source: "folder", path: "pdf-tools" };
    await callTool(tool(), args, { workspace });
    const before = (await stat(join(skillsDir, "pdf-tools", ".install.json"))).mtimeMs;
    const again = await callTool(tool(), args, { workspace });
    expect(again).toMatchObject({
      success: true,
      output: "Skill pdf-tools is already installed by this call.",
    });
    expect((await stat(join(skillsDir, "pdf-tools", ".install.json"))).mtimeMs).toBe(before);
  });
});

describe("skill_install from an npm tarball", () => {
  it("installs a verified tarball and never runs its install scripts", async () => {
    const pkg = await tarball("pdf-tools-1.0.0.tgz", {
      "package.json": JSON.stringify({
        name: "@acme/pdf-tools",
        version: "1.0.0",
        scripts: { postinstall: "touch PWNED", test: "true" },
      }),
      "SKILL.md": SKILL_MD.replace("name: pdf-tools\n", ""),
      "lib/helper.md": "helper",
    });
    const result = await callTool(
      tool(),
      { source: "tarball", path: pkg.file, integrity: pkg.integrity },
      { workspace },
    );
    expect(result.success).toBe(true);
    expect(result.output).toContain(
      "Installed skill pdf-tools from tarball pdf-tools-1.0.0.tgz (3 files, sha512-",
    );
    expect(result.output).toContain("Package scripts were not run: postinstall.");
    expect((await readdir(join(skillsDir, "pdf-tools"))).sort()).toEqual([
      ".install.json",
      "SKILL.md",
      "lib",
      "package.json",
    ]);
    await expect(stat(join(skillsDir, "pdf-tools", "PWNED"))).rejects.toThrow();
    await expect(stat(join(workspace, "PWNED"))).rejects.toThrow();
  });

  it("refuses a tarball whose bytes do not match the approved integrity hash", async () => {
    const pkg = await tarball("a.tgz", { "SKILL.md": SKILL_MD });
    const wrong = sri(Buffer.from("something else"));
    const result = await callTool(
      tool(),
      { source: "tarball", path: pkg.file, integrity: wrong },
      { workspace },
    );
    expect(result).toMatchObject({ success: false, errorKind: "denied" });
    expect(await readdir(skillsDir)).toEqual([]);
  });

  it("refuses a tarball with a symbolic link entry and writes nothing", async () => {
    const pkg = await tarball("b.tgz", { "SKILL.md": SKILL_MD }, { "evil.md": "/etc/passwd" });
    const result = await callTool(
      tool(),
      { source: "tarball", path: pkg.file, integrity: pkg.integrity },
      { workspace },
    );
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    if (!result.success) expect(result.error).toContain('entry "package/evil.md" is a SymbolicLink');
    expect(await readdir(skillsDir)).toEqual([]);
  });

  it.each([
    [{ source: "tarball", path: "x.tgz" }, "integrity: is required for a tarball"],
    [
      { source: "tarball", path: "x.tgz", integrity: "md5-abcdefghij" },
      "integrity: must be a Subresource Integrity string",
    ],
    [{ source: "zip", path: "x" }, 'source: must be one of "folder", "tarball"'],
    [{ source: "folder" }, "path: is required"],
    [{ source: "folder", path: "pdf-tools", name: "Bad Name" }, "name: skill name"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(tool(), args, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});

describe("skill_install under the journal", () => {
  const redis: Redis = testRedisClient();
  const prefix = uniquePrefix("skill-install");
  afterAll(async () => {
    await deleteKeysWithPrefix(redis, prefix);
    redis.disconnect();
  });

  it("replays the journalled result without installing again", async () => {
    const install = tool();
    const journal = new Journal({ redis, keyPrefix: prefix });
    const args = { source: "folder", path: "pdf-tools" };
    const ctx = toolContext(install, args, { workspace });
    const first = await journalledCall(journal, "run-install", install, args, ctx);
    const before = (await stat(join(skillsDir, "pdf-tools", ".install.json"))).mtimeMs;
    const second = await journalledCall(journal, "run-install", install, args, ctx);
    expect(first.result.success).toBe(true);
    expect(second).toEqual({ result: first.result, replay: true });
    expect((await stat(join(skillsDir, "pdf-tools", ".install.json"))).mtimeMs).toBe(before);
  });
});
