import type { WorkspaceView } from "../beneath/workspace-view.js";
import type { ChangeSetSummary } from "./change-set-summary.js";
import type { LayerChanges, LayerMember } from "./run-layers.js";

/**
 * The runs' layers as a run sees them (implemented over {@link RunLayers} by the worker). A layer
 * is a run tree's: `layerId` is the tree's trace id, which sub-agents inherit.
 */
export interface WorkspaceLayerPort {
  /** Opens the tree's layer over its workspace for a tool call; undefined when runs work without one. */
  enter(run: {
    readonly runId: string;
    readonly layerId: string;
    readonly workspace: string;
  }): Promise<WorkspaceView | undefined>;
  /**
   * At the root run's end: stops every process the run still has (none may write while the set is
   * read), lets go of the layer's namespace and reads its change set; undefined when there is
   * nothing to land.
   */
  settle(layerId: string, runId: string): Promise<LayerChanges | undefined>;
  /** The change set as a person reviews it. */
  summary(layerId: string, changes: LayerChanges): Promise<ChangeSetSummary>;
  land(
    layerId: string,
    options: { note: string; expectDigest?: string; keepSpecialBits?: boolean },
  ): Promise<{ changes: number }>;
  keep(layerId: string, note: string): Promise<void>;
  /** Records runs of the tree before they are queued (see RunLayers.adopt). */
  adopt(layerId: string, members: readonly LayerMember[]): Promise<void>;
  /** The runs recorded for the tree. */
  members(layerId: string): Promise<LayerMember[]>;
  /**
   * After a call worked in the layer: why the layer is over `execution.disk_mb` (a message naming
   * the limit), or undefined while it is within (or there is no limit).
   */
  overQuota(layerId: string): Promise<string | undefined>;
}
