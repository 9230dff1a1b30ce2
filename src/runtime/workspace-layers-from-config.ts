import { join } from "node:path";
import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import { type DeepReadonly, RunnerError } from "../shared/index.js";
import { probeLayers, RunLayers, type WorkspaceLayerPort } from "../tools/index.js";

/** Whether a worker's runs work on layers, and why not. */
export type WorkspaceLayers =
  | { readonly kind: "on"; readonly port: WorkspaceLayerPort; readonly layers: RunLayers }
  | { readonly kind: "off"; readonly why: string };

/** Where a data dir keeps its runs' layers. */
export function layersDir(dataDir: string): string {
  return join(dataDir, "layers");
}

/**
 * The runs' layers of a worker from `execution.workspace_layer` (docs/SANDBOX.md). Layers need the sandbox
 * (`tools.exec.host: sandbox`: a local exec runs on the host, where no layer can hold it) and a data
 * dir; `auto` probes the kernel once and goes without, saying why, `required` refuses to start.
 * `stopRun` stops a run's processes before its change set is read.
 */
export async function workspaceLayersFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  options: { dataDir: string | undefined; logger: Logger; stopRun: (runId: string) => Promise<number> },
): Promise<WorkspaceLayers> {
  const mode = config.execution.workspace_layer;
  const off = (why: string): WorkspaceLayers => {
    if (mode === "required") {
      throw new RunnerError(
        "WORKSPACE_LAYER_FAILED",
        `execution.workspace_layer is required, but runs cannot have a layer here: ${why}. Fix that, or set execution.workspace_layer: auto to run without layers where they are unavailable`,
      );
    }
    return { kind: "off", why };
  };
  if (mode === "off") return { kind: "off", why: "execution.workspace_layer is off" };
  if (config.tools.exec.host !== "sandbox")
    return off(`tools.exec.host is ${config.tools.exec.host}: layers hold sandboxed runs only`);
  if (options.dataDir === undefined) return off("this process has no data dir");
  const dir = layersDir(options.dataDir);
  const probe = await probeLayers(dir);
  if (!probe.ok) return off(`the kernel would not mount one (${probe.why})`);
  const layers = new RunLayers({ dir });
  const swept = await layers.sweep(config.execution.layer_retention_days).catch(() => 0);
  if (swept > 0) options.logger.info({ swept }, "removed layers older than execution.layer_retention_days");
  const port: WorkspaceLayerPort = {
    enter: async (run) => layers.enter(run.layerId, run.runId, run.workspace),
    settle: async (layerId, runId) => {
      await options.stopRun(runId);
      await layers.release(runId);
      return layers.changes(layerId);
    },
    summary: (layerId, changes) => layers.summary(layerId, changes),
    land: (layerId, landing) => layers.land(layerId, landing),
    keep: (layerId, note) => layers.keep(layerId, note),
    adopt: (layerId, members) => layers.adopt(layerId, members),
    members: (layerId) => layers.members(layerId),
    overQuota: async (layerId) => {
      const limitMb = config.execution.disk_mb;
      if (limitMb === 0) return undefined;
      const used = await layers.overLimit(layerId, limitMb * 1024 * 1024);
      if (used === undefined) return undefined;
      return `the run's changes take more than ${limitMb} MiB (execution.disk_mb): delete what the run does not need (build output, downloads) before writing more, or raise execution.disk_mb`;
    },
  };
  return { kind: "on", port, layers };
}
