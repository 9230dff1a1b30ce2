import type { AgentJobPayload } from "../../queue/index.js";
import { RunnerError } from "../../shared/index.js";
import type { ChildrenPort } from "./ports.js";

/** Longest answer of one dependency given to a workflow step, characters. */
export const DEPENDENCY_ANSWER_MAX_CHARS = 8000;

/**
 * The run's task, followed (for a workflow step) by the final answers of the steps it depends on,
 * which completed before it started. An answer that is no longer kept is said to be missing.
 */
export async function taskWithDependencies(
  payload: AgentJobPayload,
  children: Pick<ChildrenPort, "state">,
): Promise<string> {
  const deps = payload.dependsOn ?? [];
  if (deps.length === 0) return payload.agent.task;
  const parts = await Promise.all(
    deps.map(async (runId) => {
      const state = await children.state(runId);
      const answer =
        state.status === "completed"
          ? state.finalAnswer.slice(0, DEPENDENCY_ANSWER_MAX_CHARS)
          : `(no answer: the step is ${state.status})`;
      return `### ${runId}\n${answer}`;
    }),
  );
  return `${payload.agent.task}\n\n## Answers of the steps this one depends on\n\n${parts.join("\n\n")}`;
}

/**
 * Stops the run if someone asked it to (task or workflow stop): before each step, never mid-call.
 * Only a parent run can stop a run (task / workflow stop touch only the caller's own children), so a
 * run without a parent is never asked, which saves a top-level run one Redis round trip per step.
 */
export async function throwIfStopRequested(
  payload: AgentJobPayload,
  children: Pick<ChildrenPort, "stopRequested">,
): Promise<void> {
  if (payload.parentExecutionId === null) return;
  if (await children.stopRequested(payload.runId)) {
    throw new RunnerError(
      "RUN_CANCELLED",
      `run ${payload.runId} was stopped on request (task or workflow stop by its parent run)`,
      { data: { runId: payload.runId } },
    );
  }
}
