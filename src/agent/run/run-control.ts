import type { ChildFlowRecord, PersonAnswer, RunControl } from "../../catalog/index.js";
import type { GateCall } from "../../gate/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { childPayload, fanOutDenial } from "./child-payload.js";
import { approvalAnswered, ParkSignal } from "./park-signal.js";
import type { RunScope } from "./run-scope.js";

/** A call's {@link RunControl}, and what interrupted the call when it must not end as a tool result. */
export interface CallRunControl {
  readonly port: RunControl;
  /**
   * The park signal or infrastructure error (queue, approvals) the port threw, if any. The tool
   * sees the throw, but invoking a tool turns throws into results; the run loop raises this instead,
   * so a parked call waits and a failed queue write fails the attempt, neither is journalled.
   */
  interruption(): unknown;
}

/**
 * The run loop's side of {@link RunControl} for one allowed call (`key`, `call` as the gate saw
 * it). Children get ids derived from this run and the call, so a replay starts nothing twice; the
 * fan-out limit and the nesting depth are checked before anything is queued; a wait for a child or
 * a person parks the run without holding a worker (the end of a child wakes its parent, the parent
 * re-checks at least every childRecheckMs, and the signal's ready check catches an end that landed
 * while the run was parking).
 */
export function createRunControl(scope: RunScope, key: string, call: GateCall): CallRunControl {
  const { deps, payload } = scope;
  let interruption: unknown;
  const interrupting =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        interruption ??= err;
        throw err;
      }
    };

  const port: RunControl = {
    runId: payload.runId,
    callKey: key,
    startChild: interrupting(async (spec, options?: { priority?: number }) => {
      const denied = fanOutDenial(scope, key, 1);
      if (denied) return denied;
      const child = childPayload(scope, key, spec);
      if ("refused" in child) return child;
      await deps.layers?.adopt(payload.traceId, [{ runId: child.runId, parentRunId: payload.runId }]);
      await (options ? deps.children.start(child, options) : deps.children.start(child));
      return { id: child.runId };
    }),
    startFlow: interrupting(async (id, steps) => {
      const denied = fanOutDenial(scope, key, steps.length);
      if (denied) return denied;
      const children: AgentJobPayload[] = [];
      for (const step of steps) {
        const child = childPayload(scope, key, step.spec, { runId: step.runId, dependsOn: step.dependsOn });
        if ("refused" in child) return { refused: `${step.field}: ${child.refused}` };
        children.push(child);
      }
      const record: ChildFlowRecord = {
        id,
        parentRunId: payload.runId,
        steps: steps.map((s) => ({ step: s.step, runId: s.runId })),
      };
      await deps.layers?.adopt(
        payload.traceId,
        children.map((c) => ({ runId: c.runId, parentRunId: payload.runId })),
      );
      return { outcome: await deps.children.startFlow(record, children), record };
    }),
    childState: interrupting((id) => deps.children.state(id)),
    childParent: interrupting(async (id) => (await deps.children.payload(id))?.parentExecutionId),
    updateChild: interrupting((id, change) => deps.children.update(id, change)),
    stopChild: interrupting((id) => deps.children.stop(id)),
    flow: interrupting((id) => deps.children.flow(id)),
    waitForChild: interrupting(async (id) => {
      throw new ParkSignal(deps.clock.now() + deps.childRecheckMs, `waiting for sub-agent ${id}`, async () =>
        ["completed", "failed"].includes((await deps.children.state(id)).status),
      );
    }),
    ask: interrupting((question) => askPerson(scope, key, call, question)),
  };
  return { port: Object.freeze(port), interruption: () => interruption };
}

/**
 * A person's answer to a question, or a ParkSignal while nobody has answered. It reuses the
 * approval mechanism: the question goes out once (a request keyed by the call) with its link; the
 * person answers in the comment and approves (answer) or denies (declines).
 */
async function askPerson(
  scope: RunScope,
  key: string,
  call: GateCall,
  question: string,
): Promise<PersonAnswer> {
  const { deps, payload } = scope;
  const asked = {
    runId: payload.runId,
    idempotencyKey: key,
    tool: call.tool,
    argsHash: call.argsHash,
    agentId: payload.agentId,
  };
  const state = await deps.approvals.lookup(asked);
  const answered = approvalAnswered(deps.approvals, asked);
  switch (state.status) {
    case "approved":
      return { kind: "answered", text: state.comment, answeredBy: state.approver };
    case "denied":
      return { kind: "declined", reason: state.reason };
    case "expired":
      return { kind: "expired" };
    case "cancelled":
      return { kind: "cancelled" };
    case "pending":
      throw new ParkSignal(state.deadline, "waiting for an answer", answered);
    case "none": {
      const { wakeAt } = await deps.approvals.register({
        kind: "clarify",
        payload,
        jobId: scope.jobId,
        idempotencyKey: key,
        call,
        decision: undefined,
        reason: `The agent asks: ${question} (answer in the comment, then approve; deny to decline)`,
      });
      throw new ParkSignal(wakeAt, "waiting for an answer", answered);
    }
  }
}
