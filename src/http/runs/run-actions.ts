import type { OperatorActor, RunOperations } from "../../agent/index.js";
import { OPERATOR_ACTIONS, type OperatorAction } from "../../journal/index.js";
import { assertNever, isRunnerError } from "../../shared/index.js";

/** The run actions the API and /admin offer (RunOperations). */
export type RunActionsPort = Pick<RunOperations, "cancel" | "retry" | "rerun" | "waitUntilEnded">;

/** The actions, as the routes name them: the operator actions the audit trail records. */
export const RUN_ACTIONS = OPERATOR_ACTIONS;
export type RunAction = OperatorAction;

/** How long a cancel of a running run waits for its worker to stop it before answering, ms. */
export const CANCEL_WAIT_MS = 5_000;

/** What an action did, as the API answers and /admin reports it. */
export interface RunActionReply {
  action: RunAction;
  /** The run acted on. */
  runId: string;
  /** `cancelled` / `cancelling` (cancel), `queued` (retry: the same run; rerun: the new run). */
  status: "cancelled" | "cancelling" | "queued";
  /** The run that runs now: the same id (retry) or the new one (rerun). */
  started?: string;
  /** Approval requests a cancel withdrew. */
  withdrawn?: readonly string[];
}

/** Carries out one action as `actor`; a refusal is thrown as RunnerError (see {@link actionStatus}). */
export async function performRunAction(
  actions: RunActionsPort,
  action: RunAction,
  runId: string,
  actor: OperatorActor,
  reason: string,
): Promise<RunActionReply> {
  switch (action) {
    case "cancel": {
      const result = await actions.cancel(runId, actor, reason);
      const ended =
        result.status === "cancelled" || (await actions.waitUntilEnded(runId, CANCEL_WAIT_MS)) === "failed";
      return {
        action,
        runId,
        status: ended ? "cancelled" : "cancelling",
        withdrawn: result.withdrawn,
      };
    }
    case "retry": {
      const result = await actions.retry(runId, actor, reason);
      return { action, runId, status: "queued", started: result.runId };
    }
    case "rerun": {
      const result = await actions.rerun(runId, actor, reason);
      return { action, runId, status: "queued", started: result.runId };
    }
    default:
      return assertNever(action);
  }
}

/** The HTTP status of a refused action, or undefined for an error that is not a refusal. */
export function actionStatus(err: unknown): number | undefined {
  if (!isRunnerError(err)) return undefined;
  switch (err.code) {
    case "RUN_NOT_FOUND":
      return 404;
    case "RUN_NOT_CANCELLABLE":
    case "RUN_NOT_RETRYABLE":
      return 409;
    case "RUN_PAYLOAD_GONE":
      return 410;
    case "CLI_USAGE":
      return 400;
    default:
      return undefined;
  }
}
