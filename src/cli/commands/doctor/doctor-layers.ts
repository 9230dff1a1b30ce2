import type { EchoRunnerConfig } from "../../../config/index.js";
import { layersDir } from "../../../runtime/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { probeLayers } from "../../../tools/index.js";
import { type DoctorCheck, fail, ok, warn } from "./doctor-check.js";

const NAME = "workspace.layer";

/**
 * Whether runs get a copy-on-write layer over their workspace here (docs/SANDBOX.md): a real layer is
 * made in the data dir, written through and checked to have left the folder below untouched.
 */
export async function checkWorkspaceLayer(
  config: DeepReadonly<EchoRunnerConfig>,
  dataDir: string,
): Promise<DoctorCheck> {
  const mode = config.execution.workspace_layer;
  if (mode === "off") {
    return warn(
      NAME,
      "execution.workspace_layer is off: sandboxed commands write the real workspace directly (a wipe or a planted git hook lands at once)",
      "set execution.workspace_layer: auto",
    );
  }
  if (config.tools.exec.host !== "sandbox") {
    return warn(
      NAME,
      `no layer: tools.exec.host is ${config.tools.exec.host}, and layers hold sandboxed runs only`,
      "set tools.exec.host: sandbox",
    );
  }
  const probe = await probeLayers(layersDir(dataDir));
  if (!probe.ok) {
    const why = `runs cannot have a layer here: ${probe.why}`;
    const fix =
      "layers need Linux >= 5.11 (overlayfs in a namespace) and a data dir on a filesystem overlayfs can use as its upper (not overlayfs itself: give the data dir a volume)";
    return mode === "required"
      ? fail(NAME, `execution.workspace_layer is required, but ${why}`, fix)
      : warn(NAME, `${why}; runs write their real workspaces directly`, fix);
  }
  return ok(
    NAME,
    `each run works on a copy-on-write layer in ${layersDir(dataDir)} that lands when it ends (a kept one stays ${config.execution.layer_retention_days} days)`,
  );
}
