import { ModelResponse } from "../agent/index.js";
import type { JournalRecord, JournalSnapshot } from "../journal/index.js";
import { computeIdempotencyKey } from "../tools/index.js";
import { clipText, clipValue } from "./clip.js";
import type { JournalEntryView, TranscriptStep } from "./run-view.js";

const MODEL_KEY = /^model:(\d+)$/;

/** Transcript and tool-call journal of one run, decoded from its journal snapshot. */
export interface DecodedJournal {
  transcript: TranscriptStep[];
  journal: JournalEntryView[];
}

/**
 * Splits a run's journal into the model transcript (`model:<step>`) and the tool-call entries, and
 * names each tool call's entry by recomputing its idempotency key the way the agent loop does
 * (trace id, tool, run-wide call index, arguments). `toolByKey` (from the audit trail) names the
 * entries the transcript cannot (a step whose response is not journalled yet).
 */
export function decodeJournal(
  snapshot: JournalSnapshot,
  traceId: string | null,
  toolByKey: ReadonlyMap<string, string>,
  maxChars: number,
): DecodedJournal {
  const steps: { step: number; record: JournalRecord }[] = [];
  const calls: JournalRecord[] = [];
  for (const record of snapshot.records.values()) {
    const match = MODEL_KEY.exec(record.key);
    if (match) steps.push({ step: Number(match[1]), record });
    else calls.push(record);
  }
  steps.sort((a, b) => a.step - b.step);

  const named = new Map<string, { tool: string; callIndex: number }>();
  let callIndex = 0;
  const transcript: TranscriptStep[] = steps.map(({ step, record }) => {
    if (record.status !== "completed") {
      return { step, status: "in_flight", content: null, finishReason: null, usage: null, toolCalls: [] };
    }
    const parsed = ModelResponse.safeParse(record.result);
    if (!parsed.success) {
      return {
        step,
        status: "completed",
        content: `(the journalled response does not parse: ${parsed.error.issues[0]?.message ?? "invalid"})`,
        finishReason: null,
        usage: null,
        toolCalls: [],
      };
    }
    const { message, finishReason, usage } = parsed.data;
    const toolCalls = message.toolCalls.map((call) => {
      const index = callIndex++;
      const params = typeof call.arguments === "string" ? { __unparsed: call.arguments } : call.arguments;
      const key = traceId
        ? computeIdempotencyKey({ traceId, toolName: call.name, callIndex: index, params })
        : null;
      if (key) named.set(key, { tool: call.name, callIndex: index });
      return {
        id: call.id,
        name: call.name,
        arguments: clipValue(call.arguments, maxChars),
        callIndex: index,
        idempotencyKey: key,
      };
    });
    return {
      step,
      status: "completed",
      content: clipText(message.content, maxChars),
      finishReason,
      usage,
      toolCalls,
    };
  });

  const journal = calls
    .map((record): JournalEntryView => {
      // A person's answer to "did it run?" is journalled under the call's key plus a suffix.
      const baseKey = record.key.endsWith("-in-doubt")
        ? record.key.slice(0, -"-in-doubt".length)
        : record.key;
      const known = named.get(baseKey);
      const status =
        record.status === "completed"
          ? "completed"
          : record.leaseUntil <= snapshot.now
            ? "in_doubt"
            : "started";
      return {
        key: record.key,
        tool: known?.tool ?? toolByKey.get(baseKey) ?? null,
        callIndex: known?.callIndex ?? null,
        status,
        attempt: record.attempt,
        owner: record.owner,
        claimedAt: record.claimedAt,
        leaseUntil: record.leaseUntil,
        completedAt: record.status === "completed" ? record.completedAt : null,
        result: record.status === "completed" ? clipValue(record.result, maxChars) : null,
      };
    })
    .sort(
      (a, b) =>
        (a.callIndex ?? Number.MAX_SAFE_INTEGER) - (b.callIndex ?? Number.MAX_SAFE_INTEGER) ||
        a.claimedAt - b.claimedAt,
    );
  return { transcript, journal };
}
