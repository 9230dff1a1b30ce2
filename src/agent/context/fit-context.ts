import type { ChatMessage } from "../model/model-client.js";
import { estimateTokens, messageBytes } from "./token-estimate.js";

/** Tokens assumed for a pruned result's pointer line while planning (it is rendered afterwards). */
export const POINTER_TOKENS = 80;

/** Input of {@link planContext}. */
export interface PlanContextInput {
  /** The whole history: system prompt and task first, then turns (an assistant message and its tool results). */
  messages: readonly ChatMessage[];
  /** Tokens the request may take (the context budget), tools included. */
  budgetTokens: number;
  /** Bytes of the tool definitions sent with the request. */
  toolsBytes: number;
  bytesPerToken: number;
}

/** What to send: which tool results become pointers and how many of the oldest turns are dropped. */
export interface ContextPlan {
  /** Indexes (into `messages`) of tool results to replace by a pointer and a one-line summary. */
  pruned: number[];
  /** Indexes of whole turns dropped (their assistant message and its tool results). */
  dropped: number[];
  /** Estimated tokens of the request as planned. */
  estimatedTokens: number;
  /** Estimated tokens of the whole history, unpruned. */
  fullTokens: number;
}

interface Turn {
  start: number;
  /** Exclusive. */
  end: number;
}

/** The turns after the leading system/user messages: an assistant message and the tool results after it. */
function turnsOf(messages: readonly ChatMessage[]): { head: number; turns: Turn[] } {
  let head = 0;
  while (head < messages.length && messages[head]!.role !== "assistant") head++;
  const turns: Turn[] = [];
  for (let i = head; i < messages.length; ) {
    let end = i + 1;
    while (end < messages.length && messages[end]!.role !== "assistant") end++;
    turns.push({ start: i, end });
    i = end;
  }
  return { head, turns };
}

/**
 * Plans a request that fits `budgetTokens` (seed 002's second truncation level). Pure and
 * deterministic: the same history and budget give the same plan, so a replay sends the same.
 * 1. The oldest tool results become pointers (their full text stays readable with read_spill).
 * 2. Then the oldest turns are dropped whole — an assistant's tool calls go with their results, so
 *    the sequence stays valid for every provider — leaving one marker message.
 * The system prompt, the task and the latest turn (the results the model is about to read) are
 * always sent whole; when they alone exceed the budget the plan says so in `estimatedTokens`.
 */
export function planContext(input: PlanContextInput): ContextPlan {
  const { messages, budgetTokens, bytesPerToken } = input;
  const tokens = messages.map((m) => estimateTokens(messageBytes(m), 1, bytesPerToken));
  const tools = estimateTokens(input.toolsBytes, 0, bytesPerToken);
  const fullTokens = tokens.reduce((s, t) => s + t, tools);
  let total = fullTokens;
  const pruned: number[] = [];
  const dropped: number[] = [];
  if (total <= budgetTokens) return { pruned, dropped, estimatedTokens: total, fullTokens };
  const { turns } = turnsOf(messages);
  const older = turns.slice(0, -1);
  for (const turn of older) {
    for (let i = turn.start + 1; i < turn.end && total > budgetTokens; i++) {
      if (messages[i]!.role !== "tool" || tokens[i]! <= POINTER_TOKENS) continue;
      pruned.push(i);
      total -= tokens[i]! - POINTER_TOKENS;
    }
    if (total <= budgetTokens) return { pruned, dropped, estimatedTokens: total, fullTokens };
  }
  // The marker that replaces dropped turns costs about one pointer.
  let markerAdded = false;
  for (const turn of older) {
    if (total <= budgetTokens) break;
    if (!markerAdded) {
      total += POINTER_TOKENS;
      markerAdded = true;
    }
    for (let i = turn.start; i < turn.end; i++) {
      dropped.push(i);
      total -= pruned.includes(i) ? POINTER_TOKENS : tokens[i]!;
    }
  }
  // Pruned results of dropped turns stay listed: they are spilled all the same, so read_spill still
  // has their full text.
  return { pruned, dropped, estimatedTokens: total, fullTokens };
}

/** One line naming what a pruned result was and where its full text is. */
export function pointerText(content: string, spillId: string): string {
  const first = content.split("\n", 1)[0]!.replace(/\s+/g, " ").trim();
  const summary = first.length > 120 ? `${first.slice(0, 120)}…` : first;
  return `[result pruned to fit the context budget (${content.length} characters): "${summary}"; read it in full with read_spill {"id": "${spillId}"}]`;
}

/** The marker left where turns were dropped. */
export function droppedMarker(turns: number, results: number): string {
  return `[${turns} earlier turn(s) with ${results} tool result(s) were dropped to fit the context budget; results that were spilled remain readable with read_spill]`;
}

/** Builds the messages of a plan; `spillIdOf(i)` gives the pointer id of pruned result i. */
export function renderContext(
  messages: readonly ChatMessage[],
  plan: ContextPlan,
  spillIdOf: (index: number) => string,
): ChatMessage[] {
  if (plan.pruned.length === 0 && plan.dropped.length === 0) return [...messages];
  const pruned = new Set(plan.pruned);
  const dropped = new Set(plan.dropped);
  const out: ChatMessage[] = [];
  let markerAt = -1;
  let droppedTurns = 0;
  let droppedResults = 0;
  messages.forEach((message, i) => {
    if (dropped.has(i)) {
      if (markerAt < 0) {
        markerAt = out.length;
        out.push({ role: "user", content: "" });
      }
      if (message.role === "assistant") droppedTurns++;
      if (message.role === "tool") droppedResults++;
      return;
    }
    if (pruned.has(i) && message.role === "tool") {
      out.push({ ...message, content: pointerText(message.content, spillIdOf(i)) });
      return;
    }
    out.push(message);
  });
  if (markerAt >= 0) out[markerAt] = { role: "user", content: droppedMarker(droppedTurns, droppedResults) };
  return out;
}
