import { randomUUID } from "node:crypto";
import { chmod, mkdir, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import {
  callContext,
  fenceFactory,
  tempWorkspace,
  testSupervisor,
} from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createToolRegistry } from "../registry/registry.js";
import { createGitDiffTool } from "./git-diff.js";
import { createGitLogTool } from "./git-log.js";
import { createGitShowTool } from "./git-show.js";
import { createGitStatusTool } from "./git-status.js";
import { git, twoCommitRepo } from "./git-test-repo.fixture.js";

// The workspace's .git/config is hostile input: each case plants a setting that makes plain git run
// `touch <marker>`, runs every git tool, and checks nothing ran. The control then runs the same
// commands with plain git and sees the marker appear, so each plant is known to be live.

const supervisor = testSupervisor();
afterAll(() => supervisor.close());

const options = {
  pathFence: fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
  processes: supervisor,
  outputMaxBytes: 1024 * 1024,
};
const registry = createToolRegistry([
  createGitStatusTool(options),
  createGitLogTool(options),
  createGitDiffTool(options),
  createGitShowTool(options),
]);

const CALLS = [
  ["git_status", {}],
  ["git_diff", {}],
  ["git_diff", { stat: true }],
  ["git_diff", { base: "HEAD~1", target: "HEAD" }],
  ["git_show", {}],
  ["git_show", { stat: true }],
  ["git_log", { stat: true }],
] as const;

const PLAIN = [["status"], ["diff"], ["diff", "HEAD~1", "HEAD"], ["show"], ["log", "--stat"]] as const;

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/** Plants `setup`'s hostile settings in a fresh two-commit repository with a changed work tree. */
type Plant = (repo: string, touch: string) => Promise<void>;

const PLANTS: [string, Plant][] = [
  ["core.fsmonitor", async (repo, touch) => void git(repo, "config", "core.fsmonitor", touch)],
  ["diff.external", async (repo, touch) => void git(repo, "config", "diff.external", touch)],
  [
    "a filter driver's clean command, selected by .gitattributes",
    async (repo, touch) => {
      await writeFile(join(repo, ".gitattributes"), "* filter=evil\n");
      git(repo, "config", "filter.evil.clean", `${touch}; cat`);
    },
  ],
  [
    "a filter driver's long-running process",
    async (repo, touch) => {
      await writeFile(join(repo, ".git/info/attributes"), "* filter=evil\n");
      git(repo, "config", "filter.evil.process", touch);
    },
  ],
  [
    "a diff driver's textconv",
    async (repo, touch) => {
      await writeFile(join(repo, ".gitattributes"), "* diff=evil\n");
      git(repo, "config", "diff.evil.textconv", `${touch}; cat`);
    },
  ],
  [
    "a diff driver's external command",
    async (repo, touch) => {
      await writeFile(join(repo, ".gitattributes"), "* diff=evil\n");
      git(repo, "config", "diff.evil.command", touch);
    },
  ],
  [
    "a filter driver set in an included file",
    async (repo, touch) => {
      await writeFile(join(repo, ".gitattributes"), "* filter=evil\n");
      await writeFile(join(repo, "evil.cfg"), `[filter "evil"]\n\tclean = ${touch}; cat\n`);
      git(repo, "config", "include.path", "../evil.cfg");
    },
  ],
  [
    "core.hooksPath with a post-index-change hook",
    async (repo, touch) => {
      await mkdir(join(repo, "hooks"));
      await writeFile(join(repo, "hooks/post-index-change"), `#!/bin/sh\n${touch}\n`);
      await chmod(join(repo, "hooks/post-index-change"), 0o755);
      git(repo, "config", "core.hooksPath", join(repo, "hooks"));
    },
  ],
];

describe("a hostile .git/config runs nothing", () => {
  it.each(PLANTS)("%s does not run through any git tool", async (_label, plant) => {
    const repo = await tempWorkspace("git-hostile");
    await twoCommitRepo(repo);
    const marker = join(tmpdir(), `echo-pwned-${randomUUID()}`);
    await plant(repo, `touch ${marker}`);
    await writeFile(join(repo, "hello.txt"), "hello, hostile world\n");
    for (const [name, args] of CALLS) {
      const tool = registry.get(name);
      if (!tool) throw new Error(`${name} missing`);
      const result = await invokeTool(tool, args, callContext(tool, repo, { params: args }));
      expect(result.success, `${name} ${JSON.stringify(args)}: ${result.success ? "" : result.error}`).toBe(
        true,
      );
    }
    expect(await exists(marker)).toBe(false);

    // Control: plain git runs the planted program.
    for (const args of PLAIN) {
      try {
        git(repo, ...args);
      } catch {
        // A broken filter process makes plain git fail after it ran the program.
      }
    }
    expect(await exists(marker)).toBe(true);
  });

  it("ignores git variables in the worker's own environment", async () => {
    const repo = await tempWorkspace("git-hostile");
    await twoCommitRepo(repo);
    const elsewhere = await tempWorkspace("git-elsewhere");
    const marker = join(tmpdir(), `echo-pwned-${randomUUID()}`);
    const saved = { ...process.env };
    Object.assign(process.env, {
      GIT_DIR: join(elsewhere, ".git"),
      GIT_EXTERNAL_DIFF: `touch ${marker}`,
      GIT_PAGER: `touch ${marker}`,
      GIT_CONFIG_PARAMETERS: `'core.fsmonitor=touch ${marker}'`,
    });
    try {
      await writeFile(join(repo, "hello.txt"), "changed\n");
      for (const [name, args] of CALLS) {
        const tool = registry.get(name);
        if (!tool) throw new Error(`${name} missing`);
        const result = await invokeTool(tool, args, callContext(tool, repo, { params: args }));
        expect(result.success, name).toBe(true);
      }
    } finally {
      for (const key of ["GIT_DIR", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_CONFIG_PARAMETERS"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    expect(await exists(marker)).toBe(false);
  });

  it("shows the real content despite a planted textconv and pager", async () => {
    const repo = await tempWorkspace("git-hostile");
    await twoCommitRepo(repo);
    await writeFile(join(repo, ".gitattributes"), "* diff=evil\n");
    git(repo, "config", "diff.evil.textconv", "sh -c 'echo FAKE'");
    git(repo, "config", "core.pager", "sh -c 'echo PAGED'");
    const tool = registry.get("git_show");
    if (!tool) throw new Error("git_show missing");
    const result = await invokeTool(tool, {}, callContext(tool, repo));
    expect(result.output).toContain("+hello, world");
    expect(result.output).not.toContain("FAKE");
    expect(result.output).not.toContain("PAGED");
  });
});
