import type { GateCall } from "../../gate/index.js";
import type { WorkspaceLayerPort } from "../../tools/index.js";
import { awaitStartedRuns, parkWhileLayerBusy } from "./layer-waits.js";
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
