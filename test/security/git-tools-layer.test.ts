import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createPathFence } from "../../src/guard/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { withWorkspaceView } from "../../src/tools/beneath/workspace-view.js";
import { createGitLogTool } from "../../src/tools/git/git-log.js";
import { createGitStatusTool } from "../../src/tools/git/git-status.js";
import { git, twoCommitRepo } from "../../src/tools/git/git-test-repo.fixture.js";
import { RunLayers } from "../../src/tools/layer/run-layers.js";
import { callContext, fenceFactory, testSupervisor } from "../../src/tools/registry/builtin-tools.fixture.js";
import { invokeTool } from "../../src/tools/registry/invoke-tool.js";

/**
 * The git tools in a run's copy-on-write layer: git starts through nsenter into the run's mount
 * namespace, so it reads the layer (what the run's other tools wrote), not the real workspace.
 */

const supervisor = testSupervisor();
const layers: RunLayers[] = [];
afterEach(async () => {
  for (const l of layers.splice(0)) await l.close();
});
afterAll(() => supervisor.close());

const options = {
  pathFence: fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
  processes: supervisor,
  outputMaxBytes: 1024 * 1024,
};

describe("the git tools in a workspace layer", () => {
  it("see the layer's commits and changes, and the real workspace stays as it was", async () => {
    const root = await mkdtemp(join(tmpdir(), "echo-git-layer-"));
    const workspace = join(root, "ws");
    mkdirSync(workspace);
    await twoCommitRepo(workspace);
    const runLayers = new RunLayers({ dir: join(root, "data", "layers") });
    layers.push(runLayers);
    const view = await runLayers.enter("run-git", "run-git", workspace);
    // In the layer (as exec would): a third commit, then an uncommitted change.
    const inLayer = spawnSync(
      "/usr/bin/nsenter",
      [
        `--mount=${view.mountNamespace}`,
        "--",
        "/bin/sh",
        "-c",
        `cd ${workspace} && echo layer > layer.txt && git add layer.txt && git -c user.name=L -c user.email=l@x commit -qm "commit in the layer" && echo dirty >> README.md`,
      ],
      {
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      },
    );
    expect(inLayer.status, inLayer.stderr).toBe(0);

    const log = createGitLogTool(options);
    const status = createGitStatusTool(options);
    const [logged, changed] = await withWorkspaceView(view, async () => [
      await invokeTool(log, {}, callContext(log, workspace)),
      await invokeTool(status, {}, callContext(status, workspace)),
    ]);
    expect(logged.output).toContain("commit in the layer");
    expect(changed.output).toBe("## main\n M README.md\n");

    // The host's view of the same workspace: no third commit, nothing changed.
    expect(git(workspace, "log", "--format=%s")).toBe("fix the greeting\nadd readme\n");
    const hostLog = await invokeTool(log, {}, callContext(log, workspace));
    expect(hostLog.output).not.toContain("commit in the layer");
  });
});
