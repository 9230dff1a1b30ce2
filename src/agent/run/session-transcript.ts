import type { ToolResult } from "../../catalog/index.js";
import { type Journal, modelStepKey } from "../../journal/index.js";
import type { AgentJobPayload } from "../../queue/index.js";
import { type ArchivedRun, computeIdempotencyKey, type TranscriptEntry } from "../../tools/index.js";
import { ModelResponse } from "../model/model-client.js";

/** Where finished runs' transcripts go (RedisSessionArchive in the worker). */
export interface SessionRecorder {
  record(run: ArchivedRun, now: number): Promise<void>;
}

/**
 * A run's transcript rebuilt from its journal: the task, then every journalled model answer and
 * the result of each of its tool calls, found by the same idempotency keys the loop used (trace,
 * tool, call index, arguments). Results in the journal are already redacted and truncated, so no
 * credential reaches the archive. Steps that never completed end the transcript.
 */
export async function sessionTranscript(
  journal: Journal,
  payload: AgentJobPayload,
): Promise<TranscriptEntry[]> {
  const { records } = await journal.readRun(payload.runId);
  const completed = (key: string): unknown => {
    const record = records.get(key);
    return record?.status === "completed" ? record.result : undefined;
  };
  const entries: TranscriptEntry[] = [{ role: "user", text: payload.agent.task }];
  let callIndex = 0;
  for (let step = 0; step < payload.agent.maxSteps; step++) {
    const parsed = ModelResponse.safeParse(completed(modelStepKey(step)));
    if (!parsed.success) break;
    const { content, toolCalls } = parsed.data.message;
    if (content) entries.push({ role: "assistant", text: content });
    for (const call of toolCalls) {
      const params = typeof call.arguments === "string" ? { __unparsed: call.arguments } : call.arguments;
      const key = computeIdempotencyKey({ traceId: payload.traceId, toolName: call.name, callIndex, params });
      callIndex++;
      const result = completed(key) as ToolResult | undefined;
      if (!result) continue;
      const text = result.success ? result.output : `error (${result.errorKind}): ${result.error}`;
      entries.push({ role: "tool", tool: call.name, text });
    }
    if (toolCalls.length === 0) break;
  }
  return entries;
}

/** Archives a finished run's transcript under its user (a no-op without a recorder). */
export async function archiveRun(
  deps: { journal: Journal; sessions?: SessionRecorder | undefined; clock: { now(): number } },
  payload: AgentJobPayload,
): Promise<void> {
  if (!deps.sessions) return;
  const entries = await sessionTranscript(deps.journal, payload);
  await deps.sessions.record(
    {
      summary: {
        runId: payload.runId,
        userId: payload.userId,
        agentId: payload.agentId,
        startedAt: payload.createdAt,
      },
      entries,
    },
    deps.clock.now(),
  );
}
