import type { GateCall } from "../../gate/index.js";
import { isRunnerError } from "../../shared/index.js";
import type { WorkspaceLayerPort } from "../../tools/index.js";
import { approvalAnswered, ParkSignal } from "./park-signal.js";
import type { RunOutcome } from "./run-contract.js";
import type { RunScope } from "./run-scope.js";

/** The name a landing is asked for under (not a tool an agent can call: the run's end asks it). */
export const LANDING_REQUEST_TOOL = "workspace_landing";
/** The landing's key in the run's approvals (one per run; the approval id joins it to the run id). */
export const LANDING_REQUEST_KEY = "layer-landing";

/**
 * The run's end for its layer (docs/SANDBOX.md): an ordinary change set lands by itself; one that deletes
 * many files, touches `.git/`, writes a file that runs code elsewhere, sets setuid bits or links out
 * of the workspace parks for a person, who sees the change set (file list and text diff) on the
 * approval page, in the mail and in /admin. Approved: it lands, exactly the set that was approved
 * (the approval binds to its digest). Denied or expired: the real workspace stays as it was and the
 * layer is kept for `echo-runner runs diff|land|discard`. A replay after a crash mid-landing lands
 * the same set to the same end (the landing record makes it exactly once).
 */
export async function landRunLayer(scope: RunScope, outcome: RunOutcome): Promise<RunOutcome> {
  const { deps, payload } = scope;
  const layers = deps.layers;
  if (layers === undefined) return outcome;
  await awaitStartedRuns(scope);
  // A sub-agent's changes are its tree's: the root lands them all, reviewed together, when it ends.
  if (payload.parentExecutionId !== null) return outcome;
  return parkWhileLayerBusy(scope, () => landTree(scope, layers, outcome));
}

async function landTree(
  scope: RunScope,
  layers: WorkspaceLayerPort,
  outcome: RunOutcome,
): Promise<RunOutcome> {
  const { deps, payload } = scope;
  const runId = payload.runId;
  const layerId = payload.traceId;
  const changes = await layers.settle(layerId, runId);
  if (changes === undefined) return outcome;
  if (changes.set.changes.length === 0) {
    await layers.land(layerId, { note: "nothing changed" });
    return outcome;
  }
  if (!changes.review.needsPerson) {
    const landed = await layers.land(layerId, {
      note: "landed at the run's end (an ordinary change set)",
      expectDigest: changes.digest,
    });
    return withLanding(outcome, "landed", landed.changes, "landed at the run's end");
  }
  const lookup = {
    runId,
    idempotencyKey: LANDING_REQUEST_KEY,
    tool: LANDING_REQUEST_TOOL,
    argsHash: changes.digest,
    agentId: payload.agentId,
  };
  const answer = await deps.approvals.lookup(lookup);
  const why = `the run's change set waits for a person before it lands: ${changes.review.reasons.join("; ")}`;
  switch (answer.status) {
    case "approved": {
      const landed = await layers.land(layerId, {
        note: `landed, approved by ${answer.approver}`,
        expectDigest: changes.digest,
        keepSpecialBits: true,
      });
      return withLanding(outcome, "landed", landed.changes, `landed, approved by ${answer.approver}`);
    }
    case "denied":
    case "expired":
    case "cancelled": {
      const note = `not landed: the landing was ${answer.status} (${answer.by}: ${answer.reason}); the workspace is as it was, the layer is kept`;
      await layers.keep(layerId, note);
      return withLanding(outcome, "kept", changes.set.changes.length, note);
    }
    case "pending":
      throw new ParkSignal(answer.deadline, why, approvalAnswered(deps.approvals, lookup));
    case "none": {
      const summary = await layers.summary(layerId, changes);
      const call: GateCall = {
        tool: LANDING_REQUEST_TOOL,
        args: { ...summary },
        risk: "write",
        argsHash: changes.digest,
      };
      const { wakeAt } = await deps.approvals.register({
        kind: "approval",
        payload,
        jobId: scope.jobId,
        idempotencyKey: LANDING_REQUEST_KEY,
        call,
        decision: undefined,
        reason: `${why}. Approve to land these changes in ${summary.workspace}; deny to leave the workspace as it is (the changes are kept for \`echo-runner runs diff|land|discard ${runId}\`).`,
      });
      throw new ParkSignal(wakeAt, why, approvalAnswered(deps.approvals, lookup));
    }
  }
}

function withLanding(
  outcome: RunOutcome,
  state: "landed" | "kept",
  changes: number,
  note: string,
): RunOutcome {
  return { ...outcome, landing: { state, changes, note } };
}

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
