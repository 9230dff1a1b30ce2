import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withHeldEntry } from "../../src/tools/beneath/held-entry.js";
import { readHeldFile } from "../../src/tools/beneath/held-read.js";
import { viewedPath, withWorkspaceView } from "../../src/tools/beneath/workspace-view.js";
import { RunLayers } from "../../src/tools/layer/run-layers.js";

/**
 * A run's layer as its tools see it: the worker mounts the layer in a mount
 * namespace of its own and holds it by descriptor; host-side file operations made in the run's
 * view and commands entered into the namespace both land in the layer, the real workspace is
 * untouched until the change set lands, and the namespace is gone once released.
 */

const layers: RunLayers[] = [];
afterEach(async () => {
  for (const l of layers.splice(0)) await l.close();
});

async function setup() {
  const root = await mkdtemp(join(tmpdir(), "echo-layer-view-"));
  const workspace = join(root, "ws");
  mkdirSync(join(workspace, "d"), { recursive: true });
  writeFileSync(join(workspace, "a.txt"), "a\n");
  writeFileSync(join(workspace, "d", "b.txt"), "b\n");
  const runLayers = new RunLayers({ dir: join(root, "data", "layers") });
  layers.push(runLayers);
  return { root, workspace, runLayers };
}

function inNamespace(mountNamespace: string, script: string) {
  return spawnSync("/usr/bin/nsenter", [`--mount=${mountNamespace}`, "--", "/bin/sh", "-c", script], {
    encoding: "utf8",
  });
}

describe("a run's layer view", () => {
  it("takes file tools' and commands' writes into the layer and lands them only at the end", async () => {
    const { workspace, runLayers } = await setup();
    const view = await runLayers.enter("run-1", "run-1", workspace);
    await withWorkspaceView(view, async () => {
      await withHeldEntry(join(workspace, "new.txt"), { createParents: true }, (e) =>
        writeFile(e.at, "new\n"),
      );
      await withHeldEntry(join(workspace, "deep", "er", "c.txt"), { createParents: true }, (e) =>
        writeFile(e.at, "c\n"),
      );
      await withHeldEntry(join(workspace, "a.txt"), {}, (e) => unlink(e.at));
      const read = await readHeldFile(join(workspace, "d", "b.txt"), 100);
      expect(read.kind === "file" && read.bytes.toString()).toBe("b\n");
      expect(existsSync(viewedPath(join(workspace, "new.txt")))).toBe(true);
    });
    const ran = inNamespace(
      view.mountNamespace,
      `rm -rf "$0/d" && echo cmd > "$0/cmd.txt" && ls "$0"`.replace(/\$0/g, workspace),
    );
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout.split("\n").filter(Boolean).sort()).toEqual(["cmd.txt", "deep", "new.txt"]);

    // Nothing reached the real workspace.
    expect(readdirSync(workspace).sort()).toEqual(["a.txt", "d"]);
    expect(readFileSync(join(workspace, "d", "b.txt"), "utf8")).toBe("b\n");

    const changes = await runLayers.changes("run-1");
    expect(changes?.review.needsPerson).toBe(false);
    expect(changes?.set.changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual(
      [
        "delete a.txt",
        "delete d",
        "mkdir deep",
        "mkdir deep/er",
        "write cmd.txt",
        "write deep/er/c.txt",
        "write new.txt",
      ].sort(),
    );
    const landed = await runLayers.land("run-1", { note: "test" });
    expect(landed.outcome).toBe("landed");
    expect(readdirSync(workspace).sort()).toEqual(["cmd.txt", "deep", "new.txt"]);
    expect(readFileSync(join(workspace, "deep", "er", "c.txt"), "utf8")).toBe("c\n");
    expect((await runLayers.record("run-1"))?.state).toBe("landed");
    expect(existsSync(join(runLayers.folderOf("run-1"), "upper"))).toBe(false);
    // Landing again is a no-op.
    expect((await runLayers.land("run-1", { note: "again" })).outcome).toBe("already");
  });

  it("is mounted again from its upper folder after a release (a park or a crash)", async () => {
    const { workspace, runLayers } = await setup();
    const first = await runLayers.enter("run-2", "run-2", workspace);
    expect(inNamespace(first.mountNamespace, `echo one > ${workspace}/one.txt`).status).toBe(0);
    await runLayers.release("run-2");
    const again = await runLayers.enter("run-2", "run-2", workspace);
    const seen = inNamespace(again.mountNamespace, `cat ${workspace}/one.txt`);
    expect(seen.stdout).toBe("one\n");
    expect(existsSync(join(workspace, "one.txt"))).toBe(false);
  });

  it("never lets a link the run made lead a host-side walk out of the layer", async () => {
    const { root, workspace, runLayers } = await setup();
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret"), "secret\n");
    const view = await runLayers.enter("run-3", "run-3", workspace);
    expect(inNamespace(view.mountNamespace, `ln -s ${outside} ${workspace}/link`).status).toBe(0);
    await withWorkspaceView(view, async () => {
      await expect(readHeldFile(join(workspace, "link", "secret"), 100)).rejects.toThrow(
        /changed while it was being used/,
      );
    });
    const changes = await runLayers.changes("run-3");
    expect(changes?.review.needsPerson).toBe(true);
    expect(changes?.review.reasons.join()).toMatch(/lead out of the workspace/);
  });

  it("keeps, discards and sweeps layers; a discarded layer never lands", async () => {
    const { workspace, runLayers } = await setup();
    const view = await runLayers.enter("run-4", "run-4", workspace);
    expect(inNamespace(view.mountNamespace, `echo x > ${workspace}/x.txt`).status).toBe(0);
    await runLayers.keep("run-4", "landing denied by ann");
    expect((await runLayers.record("run-4"))?.state).toBe("kept");
    expect((await runLayers.changes("run-4"))?.set.changes).toHaveLength(1);
    await runLayers.discard("run-4", "discarded by the operator");
    await expect(runLayers.land("run-4", { note: "late" })).rejects.toThrow(/discarded/);
    expect(existsSync(join(workspace, "x.txt"))).toBe(false);
    expect(await runLayers.sweep(1, Date.now() + 2 * 24 * 3600 * 1000)).toBe(1);
    expect(await runLayers.record("run-4")).toBeUndefined();
  });

  it("goes on in a kept layer when its run is retried (its replayed calls' writes are there)", async () => {
    const { workspace, runLayers } = await setup();
    const view = await runLayers.enter("run-7", "run-7", workspace);
    expect(inNamespace(view.mountNamespace, `echo kept > ${workspace}/k.txt`).status).toBe(0);
    await runLayers.keep("run-7", "the run failed");
    const again = await runLayers.enter("run-7", "run-7", workspace);
    expect(inNamespace(again.mountNamespace, `cat ${workspace}/k.txt`).stdout).toBe("kept\n");
    expect((await runLayers.record("run-7"))?.state).toBe("open");
    expect(existsSync(join(workspace, "k.txt"))).toBe(false);
  });

  it("leaves out FIFOs and sockets and ignores overlay marks an agent sets through the layer", async () => {
    const { workspace, runLayers } = await setup();
    const view = await runLayers.enter("run-8", "run-8", workspace);
    const script = [
      `cd ${workspace}`,
      "mkfifo pipe",
      `python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'`,
      "mkdir -p forged && echo f > forged/f",
      "setfattr -n user.overlay.opaque -v y d",
      "setfattr -n user.overlay.redirect -v /etc forged",
    ].join(" && ");
    const ran = inNamespace(view.mountNamespace, script);
    expect(ran.status, ran.stderr).toBe(0);
    const changes = await runLayers.changes("run-8");
    expect([...(changes?.set.skipped ?? [])].sort()).toEqual(["pipe", "sock"]);
    // d's forged opaque mark deletes nothing of d; the forged redirect is not a redirect.
    expect(changes?.set.changes.map((c) => `${c.kind} ${c.path}`).sort()).toEqual([
      "mkdir forged",
      "write forged/f",
    ]);
    await runLayers.land("run-8", { note: "test" });
    expect(readdirSync(workspace).sort()).toEqual(["a.txt", "d", "forged"]);
    expect(readFileSync(join(workspace, "d", "b.txt"), "utf8")).toBe("b\n");
  });

  it("refuses to land a set that changed since it was approved", async () => {
    const { workspace, runLayers } = await setup();
    const view = await runLayers.enter("run-5", "run-5", workspace);
    expect(inNamespace(view.mountNamespace, `echo one > ${workspace}/f.txt`).status).toBe(0);
    const approved = await runLayers.changes("run-5");
    const again = await runLayers.enter("run-5", "run-5", workspace);
    expect(inNamespace(again.mountNamespace, `echo two > ${workspace}/f.txt`).status).toBe(0);
    await expect(
      runLayers.land("run-5", { note: "approved", expectDigest: approved?.digest ?? "" }),
    ).rejects.toThrow(/not the one that was approved/);
    expect(existsSync(join(workspace, "f.txt"))).toBe(false);
  });

  it("names a workspace that does not exist instead of failing on realpath", async () => {
    const { root, runLayers } = await setup();
    await expect(runLayers.enter("run-9", "run-9", join(root, "missing"))).rejects.toMatchObject({
      code: "WORKSPACE_LAYER_FAILED",
      message: expect.stringMatching(/missing does not exist: create it/),
    });
  });

  it("refuses a workspace path overlay options cannot carry", async () => {
    const { root, runLayers } = await setup();
    const odd = join(root, "a,b");
    mkdirSync(odd);
    symlinkSync(odd, join(root, "unused-link"));
    await expect(runLayers.enter("run-6", "run-6", odd)).rejects.toThrow(/comma, colon or backslash/);
  });
});
