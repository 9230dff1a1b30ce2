import { spawnSync } from "node:child_process";
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * A worker that does not run as root makes its layers in a user namespace of its own (`unshare
 * -Urm`: an unprivileged overlay mount), and the sandbox and file tools enter both namespaces. The
 * test runs a real worker-side RunLayers as uid 65534 (setpriv), not as the root the suites run as:
 * writes and deletes go to the layer, the workspace stays as it was, and the change set reads them.
 * The process keeps only CAP_DAC_READ_SEARCH (to read the repository wherever it was cloned), so a
 * mount of its own would fail.
 */
const runLayersModule = pathToFileURL(
  resolve(import.meta.dirname, "../../dist/src/tools/layer/run-layers.js"),
).href;

/**
 * The worker's side, as plain JavaScript over the built dist/ (plain node reads files through
 * its capability; tsx's loader does not): opens layer `t1` of data dir `argv[2]` over workspace
 * `argv[3]` (a user namespace, then the mount namespace), writes and deletes in it the way the
 * sandbox does (nsenter into both) and prints what it found, as JSON.
 */
const PROBE = `
import { spawnSync } from "node:child_process";
const { RunLayers } = await import(${JSON.stringify(runLayersModule)});
const [dir, workspace] = process.argv.slice(2);
const layers = new RunLayers({ dir });
const view = await layers.enter("t1", "r1", workspace);
const userNamespace = view.userNamespace;
const wrote = spawnSync("/usr/bin/nsenter", [
  ...(userNamespace ? ["--user=" + userNamespace, "--preserve-credentials"] : []),
  "--mount=" + view.mountNamespace, "--", "/bin/sh", "-c",
  'echo from-the-layer > "' + workspace + '/x.txt" && rm "' + workspace + '/old.txt"',
], { encoding: "utf8" });
const changes = await layers.changes("t1");
await layers.close();
process.stdout.write("RESULT " + JSON.stringify({
  uid: process.getuid(),
  userNamespace: userNamespace !== undefined,
  wrote: { status: wrote.status, stderr: wrote.stderr },
  changes: changes?.set.changes.map((c) => c.kind + " " + c.path).sort(),
}) + "\\n");
`;

describe("a layer made by a worker that is not root", () => {
  it("takes writes and deletes into the layer through a user namespace of its own", async () => {
    const root = await mkdtemp(join(tmpdir(), "echo-layer-nonroot-"));
    await chmod(root, 0o755);
    const workspace = join(root, "ws");
    const data = join(root, "data");
    const temp = join(root, "tmp");
    for (const dir of [workspace, data, temp]) {
      await mkdir(dir);
      await chown(dir, 65534, 65534);
    }
    await writeFile(join(temp, "probe.mjs"), PROBE);
    await writeFile(join(workspace, "old.txt"), "old\n");
    await chown(join(workspace, "old.txt"), 65534, 65534);
    const run = spawnSync(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        // Only to read the repository wherever CI cloned it (a parent folder may be closed to
        // others): reading grants nothing toward a mount, which needs CAP_SYS_ADMIN.
        "--inh-caps=+dac_read_search",
        "--ambient-caps=+dac_read_search",
        "env",
        `HOME=${temp}`,
        `TMPDIR=${temp}`,
        process.execPath,
        join(temp, "probe.mjs"),
        join(data, "layers"),
        workspace,
      ],
      { cwd: temp, encoding: "utf8", timeout: 60_000 },
    );
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    expect(line, `${run.stdout}\n${run.stderr}`).toBeDefined();
    const result = JSON.parse((line as string).slice("RESULT ".length));
    expect(result).toEqual({
      uid: 65534,
      userNamespace: true,
      wrote: { status: 0, stderr: "" },
      changes: ["delete old.txt", "write x.txt"],
    });
    expect(await readdir(workspace)).toEqual(["old.txt"]);
    expect(await readFile(join(workspace, "old.txt"), "utf8")).toBe("old\n");
  });
});
