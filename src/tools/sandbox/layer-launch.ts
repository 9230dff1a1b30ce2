import type { WorkspaceView } from "../beneath/workspace-view.js";

/** A launch as the sandbox host builds it (see bwrap-args.ts), before the layer is entered. */
export interface PlainLaunch {
  readonly file: string;
  readonly args: readonly string[];
  /** Set when the launch starts as the sandbox's identity rather than as the worker. */
  readonly uid?: number;
  readonly gid?: number;
}

/** The programs {@link enterLayer} puts in front of a launch. */
export interface LayerLaunchPrograms {
  readonly nsenter: string;
  readonly setpriv: string;
}

/**
 * The same launch inside the run's layer: nsenter joins the run's mount namespace (where the layer
 * is mounted over the workspace) and execs the launch, so bwrap's bind of the workspace is the
 * layer and the real workspace is out of reach of everything the sandbox runs. nsenter needs the
 * worker's privileges to join, so it starts as the worker; a launch that was to start as the
 * sandbox's identity gets setpriv after nsenter to drop to it, with no supplementary groups,
 * before anything else runs. nsenter execs (it forks only for a PID namespace), so the launch's
 * pid, process group and parent stay what the supervisor tracks.
 */
export function enterLayer(
  launch: PlainLaunch,
  view: WorkspaceView,
  programs: LayerLaunchPrograms,
): { file: string; args: string[] } {
  const join = [
    `--mount=${view.mountNamespace}`,
    ...(view.userNamespace === undefined ? [] : [`--user=${view.userNamespace}`, "--preserve-credentials"]),
  ];
  const drop =
    launch.uid === undefined
      ? []
      : [
          programs.setpriv,
          `--reuid=${launch.uid}`,
          `--regid=${launch.gid ?? launch.uid}`,
          "--clear-groups",
          "--",
        ];
  return { file: programs.nsenter, args: [...join, "--", ...drop, launch.file, ...launch.args] };
}
