import { spawnSync } from "node:child_process";
import { RunLayers } from "../../src/tools/layer/run-layers.js";

/**
 * Another worker process holding a run tree's layer (for run-layer-lock.test.ts): mounts layer
 * `argv[3]` of the data dir `argv[2]` over workspace `argv[4]`, writes `held.txt` in it, says
 * "held" and waits to be killed.
 */
const [dir, layerId, workspace] = process.argv.slice(2) as [string, string, string];
const view = await new RunLayers({ dir }).enter(layerId, "holder-run", workspace);
const wrote = spawnSync("/usr/bin/nsenter", [
  `--mount=${view.mountNamespace}`,
  "--",
  "/bin/sh",
  "-c",
  `echo held > "${workspace}/held.txt"`,
]);
if (wrote.status !== 0) throw new Error(`could not write in the layer: ${wrote.stderr}`);
process.stdout.write("held\n");
setInterval(() => undefined, 60_000);
