import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../src/cli/buffer-io.fixture.js";
import { runCli } from "../../src/cli/run-cli.js";
import { RunLayers } from "../../src/tools/layer/run-layers.js";

/**
 * `echo-runner runs layers|diff|land|discard` on real layers: a kept layer's changes are
 * shown as a file list and a text diff, land on `runs land` and vanish on `runs discard`; a layer
 * still in use is refused with what to do instead.
 */
async function keptLayer(runId: string) {
  const root = await mkdtemp(join(tmpdir(), "echo-runs-cli-"));
  const workspace = join(root, "ws");
  const dataDir = join(root, "data");
  mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
  writeFileSync(join(workspace, "notes.md"), "old line\n");
  const layers = new RunLayers({ dir: join(dataDir, "layers") });
  const view = await layers.enter(runId, runId, workspace);
  const ran = spawnSync(
    "/usr/bin/nsenter",
    [
      `--mount=${view.mountNamespace}`,
      "--",
      "/bin/sh",
      "-c",
      'cd "$0" && echo "new line" > notes.md && printf "#!/bin/sh\\n" > .git/hooks/pre-commit',
      workspace,
    ],
    { encoding: "utf8" },
  );
  expect(ran.status, ran.stderr).toBe(0);
  await layers.release(runId);
  const io = bufferIo("", {}, root);
  return { root, workspace, dataDir, layers, io };
}

describe("runs layers|diff|land|discard", () => {
  it("refuses a layer in use, shows a kept one and lands it", async () => {
    const { workspace, layers, io } = await keptLayer("run-cli-1");
    expect(await runCli(["runs", "land", "run-cli-1"], io.io)).toBe(2);
    expect(io.stderr()).toMatch(/still in use/);
    await layers.keep("run-cli-1", "landing denied by ann");

    const listed = bufferIo("", {}, io.io.cwd);
    expect(await runCli(["runs", "layers"], listed.io)).toBe(0);
    expect(listed.stdout()).toMatch(/run-cli-1\s+kept/);

    const diff = bufferIo("", {}, io.io.cwd);
    expect(await runCli(["runs", "diff", "run-cli-1"], diff.io)).toBe(0);
    expect(diff.stdout()).toContain("M notes.md");
    expect(diff.stdout()).toContain("A .git/hooks/pre-commit");
    expect(diff.stdout()).toContain("-old line");
    expect(diff.stdout()).toContain("+new line");
    expect(diff.stdout()).toMatch(/git's own folder/);
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("old line\n");

    const land = bufferIo("", {}, io.io.cwd);
    expect(await runCli(["runs", "land", "run-cli-1"], land.io)).toBe(0);
    expect(land.stdout()).toMatch(/landed run run-cli-1's 2 changes/);
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("new line\n");
    expect(existsSync(join(workspace, ".git", "hooks", "pre-commit"))).toBe(true);
  });

  it("discards a kept layer and leaves the workspace as it was", async () => {
    const { workspace, layers, io } = await keptLayer("run-cli-2");
    await layers.keep("run-cli-2", "the run failed");
    expect(await runCli(["runs", "discard", "run-cli-2"], io.io)).toBe(0);
    expect(readFileSync(join(workspace, "notes.md"), "utf8")).toBe("old line\n");
    const land = bufferIo("", {}, io.io.cwd);
    expect(await runCli(["runs", "land", "run-cli-2", "--force"], land.io)).toBe(1);
    expect(land.stderr()).toMatch(/discarded/);
    const missing = bufferIo("", {}, io.io.cwd);
    expect(await runCli(["runs", "diff", "no-such-run"], missing.io)).not.toBe(0);
    expect(missing.stderr()).toMatch(/has no layer/);
  });
});
