import { isRunnerError } from "../../shared/index.js";
import { ParkSignal } from "./park-signal.js";
import type { RunScope } from "./run-scope.js";

/** How soon a run parked for a layer another process holds tries again. */
const LAYER_BUSY_RECHECK_MS = 5_000;

/**
 * `act` on the run's layer; when another process on this host holds the layer (a worker running
 * another run of the tree), the run parks, holding no worker, and tries again shortly — the other
 * process lets go when its run parks or ends. Nothing was claimed or changed when it parks.
 */
export async function parkWhileLayerBusy<T>(scope: RunScope, act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (err) {
    if (!isRunnerError(err) || err.code !== "WORKSPACE_LAYER_BUSY") throw err;
    throw new ParkSignal(scope.deps.clock.now() + LAYER_BUSY_RECHECK_MS, err.message);
  }
}

/**
 * A run with a layer ends only after the runs it started (spawn_task, task, workflow steps) have
 * ended, parked meanwhile without holding a worker: they write into the tree's layer, which lands
 * once, when the whole tree is done, so nothing a sub-agent writes arrives after the landing. A
 * child's end wakes its parent; the ready check catches one that ended while the run was parking.
 */
export async function awaitStartedRuns(scope: RunScope): Promise<void> {
  const { deps, payload } = scope;
  const layers = deps.layers;
  if (layers === undefined) return;
  const started = (await layers.members(payload.traceId)).filter((m) => m.parentRunId === payload.runId);
  if (started.length === 0) return;
  const running = async (): Promise<string[]> => {
    const states = await Promise.all(started.map((m) => deps.children.state(m.runId)));
    return started
      .filter((_, i) => ["pending", "running"].includes(states[i]?.status ?? ""))
      .map((m) => m.runId);
  };
  const waiting = await running();
  if (waiting.length === 0) return;
  throw new ParkSignal(
    deps.clock.now() + deps.childRecheckMs,
    `waiting for the sub-agents it started (${waiting.join(", ")}) to end before the run tree's changes land`,
    async () => (await running()).length === 0,
  );
}
