import { mkdir, symlink, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { redisSpillStore } from "../../agent/index.js";
import { capabilitiesOf, isInProfile, riskOf } from "../../catalog/index.js";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { ManualClock } from "../../shared/index.js";
import type { BuiltinToolRuntime } from "../builtin-runtime.js";
import {
  callContext,
  fenceFactory,
  tempWorkspace,
  testSupervisor,
} from "../registry/builtin-tools.fixture.js";
import { createBuiltinTools } from "../registry/builtin-tools.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createToolRegistry } from "../registry/registry.js";
import { git, twoCommitRepo } from "./git-test-repo.fixture.js";

const redis = testRedisClient();
const keyPrefix = uniquePrefix("git-tools");
const supervisor = testSupervisor();
afterAll(async () => {
  await supervisor.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

function runtime(overrides: Partial<BuiltinToolRuntime> = {}): BuiltinToolRuntime {
  return {
    pathFence: fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
    redis,
    keyPrefix,
    runStateRetentionMs: 60_000,
    spill: redisSpillStore(redis, keyPrefix, 60_000),
    processes: supervisor,
    execHost: "local",
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    clock: new ManualClock(1_000),
    ...overrides,
  };
}

const registry = createToolRegistry(createBuiltinTools(runtime()));

async function call(name: string, args: Record<string, unknown>, workspace: string) {
  const tool = registry.get(name);
  if (!tool) throw new Error(`${name} is not registered`);
  return invokeTool(tool, args, callContext(tool, workspace, { params: args }));
}

describe("the git tools in the catalog", () => {
  it.each(["git_status", "git_log", "git_diff", "git_show"])(
    "declares %s read-only with fs.read, in every profile, and registers it ready",
    (name) => {
      expect(riskOf(name)).toBe("read_only");
      expect(capabilitiesOf(name)).toEqual(["fs.read"]);
      expect(isInProfile("minimal", name)).toBe(true);
      const tool = registry.get(name);
      expect(tool?.riskLevel).toBe("read_only");
      expect(tool?.isReady()).toBe(true);
    },
  );

  it("is not ready, naming the binary, when git is missing", () => {
    const tools = createBuiltinTools(runtime({ git: "/nonexistent/git" }));
    const log = tools.find((t) => t.name === "git_log");
    expect(log?.isReady()).toBe(false);
    expect(log?.readinessDetail().detail).toContain("/nonexistent/git is not an executable file");
  });
});

describe("reading a repository", () => {
  it("git_log lists commits newest first with hash, date, author and subject, limited by path", async () => {
    const ws = await tempWorkspace("git-log");
    await twoCommitRepo(ws);
    const all = await call("git_log", {}, ws);
    expect(all.success).toBe(true);
    const subjects = all.output.split("\n").filter((l) => l.startsWith("    "));
    expect(subjects).toEqual(["    fix the greeting", "    add readme"]);
    expect(all.output).toContain("Ann Author <ann@example.org>");
    const readme = await call("git_log", { path: "README.md", stat: true }, ws);
    expect(readme.output).toContain("add readme");
    expect(readme.output).not.toContain("fix the greeting");
    expect(readme.output).toContain("README.md | 1 +");
    const one = await call("git_log", { max_count: 1, revision: "HEAD~1" }, ws);
    expect(one.output).toContain("add readme");
    expect(one.output).not.toContain("fix the greeting");
  });

  it("git_show shows the last commit's message and patch, and a file as of a revision", async () => {
    const ws = await tempWorkspace("git-show");
    await twoCommitRepo(ws);
    const last = await call("git_show", {}, ws);
    expect(last.success).toBe(true);
    expect(last.output).toContain("    fix the greeting");
    expect(last.output).toContain("-hello\n+hello, world");
    const old = await call("git_show", { revision: "HEAD~1:hello.txt" }, ws);
    expect(old.output).toBe("hello\n");
  });

  it("git_diff shows working-tree, staged and revision-to-revision changes", async () => {
    const ws = await tempWorkspace("git-diff");
    await twoCommitRepo(ws);
    await writeFile(join(ws, "README.md"), "# demo\nmore\n");
    const worktree = await call("git_diff", {}, ws);
    expect(worktree.output).toContain("+more");
    expect((await call("git_diff", { staged: true }, ws)).output).toBe("(no output)");
    git(ws, "add", "README.md");
    expect((await call("git_diff", { staged: true, stat: true }, ws)).output).toContain("README.md | 1 +");
    const between = await call("git_diff", { base: "HEAD~1", target: "HEAD", path: "hello.txt" }, ws);
    expect(between.output).toContain("+hello, world");
    expect(between.output).not.toContain("README");
  });

  it("git_status shows the branch and changed and untracked files", async () => {
    const ws = await tempWorkspace("git-status");
    await twoCommitRepo(ws);
    await writeFile(join(ws, "hello.txt"), "changed\n");
    await writeFile(join(ws, "new.txt"), "new\n");
    const status = await call("git_status", {}, ws);
    expect(status.output).toBe("## main\n M hello.txt\n?? new.txt\n");
  });

  it("reads a repository in a folder of the workspace given as repo", async () => {
    const ws = await tempWorkspace("git-sub");
    await mkdir(join(ws, "app"));
    await twoCommitRepo(join(ws, "app"));
    const log = await call("git_log", { repo: "app", path: "app/README.md" }, ws);
    expect(log.output).toContain("add readme");
    expect(log.output).not.toContain("fix the greeting");
  });

  it("keeps the output cap and says how much it dropped", async () => {
    const ws = await tempWorkspace("git-cap");
    await twoCommitRepo(ws);
    const small = createToolRegistry(createBuiltinTools(runtime({ limits: { execOutputMaxBytes: 64 } })));
    const tool = small.get("git_show");
    if (!tool) throw new Error("git_show missing");
    const result = await invokeTool(tool, {}, callContext(tool, ws));
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/\[\d+ more bytes of output dropped; narrow/);
  });
});

describe("arguments that are not revisions or workspace paths", () => {
  it.each([
    ["git_log", { revision: "--output=/tmp/echo-git-injected" }, "revision"],
    ["git_log", { revision: "HEAD --all" }, "revision"],
    ["git_diff", { base: "--ext-diff" }, "base"],
    ["git_diff", { base: "HEAD", target: "-p" }, "target"],
    ["git_show", { revision: "-c" }, "revision"],
    ["git_log", { path: "--output=x" }, "path"],
    ["git_log", { path: ":(top)x" }, "path"],
    ["git_status", { repo: "-C/etc" }, "repo"],
  ] as const)("%s refuses %j as a validation error naming %s", async (name, args, field) => {
    const ws = await tempWorkspace("git-args");
    await twoCommitRepo(ws);
    const result = await call(name, args, ws);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(result.success ? "" : result.error).toContain(field);
  });

  it("refuses target without base", async () => {
    const ws = await tempWorkspace("git-args");
    await twoCommitRepo(ws);
    expect(await call("git_diff", { target: "HEAD" }, ws)).toMatchObject({ errorKind: "validation" });
  });

  it("denies a path or repo outside the workspace", async () => {
    const ws = await tempWorkspace("git-fence");
    await twoCommitRepo(ws);
    expect(await call("git_log", { path: "../../etc/passwd" }, ws)).toMatchObject({
      success: false,
      errorKind: "denied",
    });
    expect(await call("git_status", { repo: "/" }, ws)).toMatchObject({
      success: false,
      errorKind: "denied",
    });
  });

  it("refuses a .git file, a .git link and borrowed objects, which point git outside the workspace", async () => {
    const outside = await tempWorkspace("git-outside");
    await twoCommitRepo(outside);
    const gitFile = await tempWorkspace("git-file");
    await writeFile(join(gitFile, ".git"), `gitdir: ${outside}/.git\n`);
    const gitLink = await tempWorkspace("git-link");
    await symlink(join(outside, ".git"), join(gitLink, ".git"));
    const borrowed = await tempWorkspace("git-alt");
    git(borrowed, "init", "-q");
    await writeFile(join(borrowed, ".git/objects/info/alternates"), `${outside}/.git/objects\n`);
    for (const ws of [gitFile, gitLink, borrowed]) {
      const result = await call("git_log", {}, ws);
      expect(result).toMatchObject({
        success: false,
        errorKind: "denied",
        data: { rule: "git.foreign-git-dir" },
      });
    }
  });

  it("does not search upwards for a repository above the workspace", async () => {
    const parent = await tempWorkspace("git-parent");
    await twoCommitRepo(parent);
    await mkdir(join(parent, "inner"));
    const result = await call("git_log", {}, join(parent, "inner"));
    expect(result).toMatchObject({ success: false, errorKind: "business" });
    expect(result.success ? "" : result.error).toContain("is not a git repository");
  });
});
