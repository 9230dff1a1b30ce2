import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLayers } from "../../src/tools/layer/run-layers.js";
import { sandboxedExec } from "../helpers/sandbox-exec.js";

/**
 * One process at a time works on a layer: two overlay mounts of one upper folder are undefined
 * behaviour, and a landing must not read what another process still writes. A second worker
 * process (or `runs land`) finds the layer busy while the first holds it; when the first dies
 * however it dies (here SIGKILL), the layer is free at once and what it wrote is still there.
 */

const holders: ChildProcess[] = [];
const layers: RunLayers[] = [];
afterEach(async () => {
  for (const h of holders.splice(0)) h.kill("SIGKILL");
  for (const l of layers.splice(0)) await l.close();
});

function startHolder(dir: string, layerId: string, workspace: string): Promise<ChildProcess> {
  const holder = spawn(
    process.execPath,
    ["bin/run-ts.js", "test/security/layer-holder.ts", dir, layerId, workspace],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  holders.push(holder);
  return new Promise((resolve, reject) => {
    let out = "";
    holder.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("held\n")) resolve(holder);
    });
    holder.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    holder.on("exit", (code) => reject(new Error(`the holder exited (${code}): ${out}`)));
  });
}

async function busyCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

describe("a layer's lock across processes", () => {
  it("keeps a second process out while one holds the layer, and frees it when that one is killed", async () => {
    const root = await mkdtemp(join(tmpdir(), "echo-layer-lock-"));
    const workspace = join(root, "ws");
    mkdirSync(workspace);
    const dir = join(root, "layers");
    const holder = await startHolder(dir, "tree-1", workspace);

    const other = new RunLayers({ dir });
    layers.push(other);
    expect(await busyCode(other.enter("tree-1", "child-run", workspace))).toBe("WORKSPACE_LAYER_BUSY");
    expect(await busyCode(other.changes("tree-1"))).toBe("WORKSPACE_LAYER_BUSY");
    expect(await busyCode(other.land("tree-1", { note: "operator" }))).toBe("WORKSPACE_LAYER_BUSY");
    expect(await busyCode(other.discard("tree-1", "operator"))).toBe("WORKSPACE_LAYER_BUSY");
    // Another tree's layer is not held by it.
    await expect(other.enter("tree-2", "run-2", workspace)).resolves.toBeDefined();
    await other.release("run-2");

    holder.kill("SIGKILL");
    await expect
      .poll(() => busyCode(other.enter("tree-1", "child-run", workspace).then(() => "entered")))
      .toBe(undefined);
    const view = await other.enter("tree-1", "child-run", workspace);
    const seen = spawnSync(
      "/usr/bin/nsenter",
      [`--mount=${view.mountNamespace}`, "--", "/bin/cat", `${workspace}/held.txt`],
      {
        encoding: "utf8",
      },
    );
    expect(seen.stdout).toBe("held\n");
    expect(readdirSync(workspace)).toEqual([]);
  });

  it("is out of a sandbox's reach: the name the host holds is free inside, so no command can squat it", async () => {
    const root = await mkdtemp(join(tmpdir(), "echo-layer-lock-sbx-"));
    const workspace = join(root, "ws");
    mkdirSync(workspace);
    const runLayers = new RunLayers({ dir: join(root, "layers") });
    layers.push(runLayers);
    // The name the lock binds (layer-lock.ts): an agent could compute it from the data dir's path.
    const name = `echo-runner/layer/${createHash("sha256").update(runLayers.folderOf("tree-s")).digest("hex").slice(0, 40)}`;
    await runLayers.enter("tree-s", "run-s", workspace);
    // Node binds an abstract name over the whole sun_path (NUL-padded to 108 bytes): so does this.
    const bind = `import socket; s=socket.socket(socket.AF_UNIX); s.bind(("\\0${name}").ljust(108, "\\0")); print("bound")`;
    // On the host the name is taken: it is the lock's.
    expect(spawnSync("python3", ["-c", bind], { encoding: "utf8" }).stderr).toContain(
      "Address already in use",
    );
    const { supervisor, run } = sandboxedExec();
    try {
      // Abstract socket names are per network namespace and the sandbox has its own: binding the
      // name the host holds succeeds in there (were they shared, it would fail EADDRINUSE), so a
      // command in a sandbox can neither see nor hold a host's layer lock.
      const inside = await run(`python3 -c '${bind}'`, 30);
      expect(inside).toMatchObject({ success: true, output: "bound\n" });
      expect(
        await busyCode(new RunLayers({ dir: join(root, "layers") }).enter("tree-s", "other", workspace)),
      ).toBe("WORKSPACE_LAYER_BUSY");
    } finally {
      await supervisor.close();
    }
  });

  it("records the runs of a tree for their parents' ends to wait for", async () => {
    const root = await mkdtemp(join(tmpdir(), "echo-layer-members-"));
    const runLayers = new RunLayers({ dir: join(root, "layers") });
    layers.push(runLayers);
    expect(await runLayers.members("tree-1")).toEqual([]);
    await runLayers.adopt("tree-1", [
      { runId: "child-a", parentRunId: "root" },
      { runId: "flow/1.step with spaces", parentRunId: "root" },
    ]);
    await runLayers.adopt("tree-1", [{ runId: "grandchild", parentRunId: "child-a" }]);
    expect((await runLayers.members("tree-1")).sort((a, b) => a.runId.localeCompare(b.runId))).toEqual([
      { runId: "child-a", parentRunId: "root" },
      { runId: "flow/1.step with spaces", parentRunId: "root" },
      { runId: "grandchild", parentRunId: "child-a" },
    ]);
  });
});
