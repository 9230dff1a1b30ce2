import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../model/model-client.js";
import { planContext, renderContext } from "./fit-context.js";
import { estimateTokens, messageBytes } from "./token-estimate.js";

function history(turns: number, resultChars: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are an agent." },
    { role: "user", content: "Read every file." },
  ];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      content: null,
      toolCalls: [{ id: `call_${i}`, name: "read_file", arguments: { path: `f${i}` } }],
    });
    messages.push({
      role: "tool",
      toolCallId: `call_${i}`,
      content: `file ${i}\n${"x".repeat(resultChars)}`,
    });
  }
  return messages;
}

const tokensOf = (messages: readonly ChatMessage[]) =>
  messages.reduce((s, m) => s + estimateTokens(messageBytes(m), 1, 3.5), 0);

/** Every tool call is answered right after its assistant turn, and every result answers a call. */
function pairedProperly(messages: readonly ChatMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "assistant") {
      const ids = m.toolCalls.map((c) => c.id);
      const next = messages.slice(i + 1, i + 1 + ids.length);
      if (
        !ids.every(
          (id, k) => next[k]?.role === "tool" && (next[k] as { toolCallId: string }).toolCallId === id,
        )
      )
        return false;
    }
    if (m.role === "tool") {
      const prev = messages
        .slice(0, i)
        .reverse()
        .find((x) => x.role === "assistant");
      if (prev?.role !== "assistant" || !prev.toolCalls.some((c) => c.id === m.toolCallId)) return false;
    }
  }
  return true;
}

describe("planContext (the context budget, seed 002's second level)", () => {
  it("sends a history within the budget unchanged", () => {
    const messages = history(3, 100);
    const plan = planContext({ messages, budgetTokens: 100_000, toolsBytes: 0, bytesPerToken: 3.5 });
    expect(plan).toMatchObject({ pruned: [], dropped: [] });
    expect(renderContext(messages, plan, () => "x")).toEqual(messages);
  });

  it("replaces the oldest results by pointers first, keeping the task, the system prompt and the latest result whole", () => {
    const messages = history(10, 2000);
    const budget = Math.ceil(tokensOf(messages) * 0.6);
    const plan = planContext({ messages, budgetTokens: budget, toolsBytes: 0, bytesPerToken: 3.5 });
    expect(plan.dropped).toEqual([]);
    expect(plan.pruned[0]).toBe(3);
    expect(plan.pruned).not.toContain(messages.length - 1);
    expect(plan.estimatedTokens).toBeLessThanOrEqual(budget);
    const sent = renderContext(messages, plan, (i) => `run/spill${i}`);
    expect(sent.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(sent.at(-1)).toEqual(messages.at(-1));
    expect(sent[3]).toMatchObject({ role: "tool", toolCallId: "call_0" });
    expect((sent[3] as { content: string }).content).toMatch(
      /^\[result pruned to fit the context budget \(2007 characters\): "file 0"; read it in full with read_spill \{"id": "run\/spill3"\}\]$/,
    );
    expect(tokensOf(sent)).toBeLessThanOrEqual(budget);
    expect(pairedProperly(sent)).toBe(true);
  });

  it("then drops the oldest turns whole (call with its result) behind one marker", () => {
    const messages = history(200, 300);
    const budget = 3000;
    const plan = planContext({ messages, budgetTokens: budget, toolsBytes: 0, bytesPerToken: 3.5 });
    expect(plan.dropped.length).toBeGreaterThan(0);
    const sent = renderContext(messages, plan, (i) => `run/s${i}`);
    expect(tokensOf(sent)).toBeLessThanOrEqual(budget);
    expect(sent.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(sent[2]).toMatchObject({ role: "user" });
    expect((sent[2] as { content: string }).content).toMatch(
      /^\[\d+ earlier turn\(s\) with \d+ tool result\(s\) were dropped/,
    );
    expect(sent.at(-1)).toEqual(messages.at(-1));
    expect(sent.at(-2)).toEqual(messages.at(-2));
    expect(pairedProperly(sent)).toBe(true);
  });

  it("is deterministic: the same history and budget give the same plan", () => {
    const messages = history(50, 700);
    const input = { messages, budgetTokens: 4000, toolsBytes: 500, bytesPerToken: 3 };
    expect(planContext(input)).toEqual(planContext(input));
  });

  it("keeps the latest turn whole even when it alone is over the budget, and says so in the estimate", () => {
    const messages = history(2, 20_000);
    const plan = planContext({ messages, budgetTokens: 2000, toolsBytes: 0, bytesPerToken: 3.5 });
    const sent = renderContext(messages, plan, () => "x");
    expect(sent.at(-1)).toEqual(messages.at(-1));
    expect(plan.estimatedTokens).toBeGreaterThan(2000);
  });
});
