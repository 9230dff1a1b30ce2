import type { ChatMessage } from "../model/model-client.js";

/**
 * Per-tool-type budgets of live output (seed 002: a live aggregate gets its own budget, apart from
 * the 8,000-character cap of one result): the characters that the results of one tool type in one
 * turn may take together. Command output (`exec`) and process logs (`process`) are long and noisy,
 * so several of them in one turn are cut to share their type's budget; their full text stays
 * readable with read_spill. Other tools have no live budget.
 */
export const DEFAULT_LIVE_OUTPUT_CHARS: Readonly<Record<string, number>> = { exec: 12_000, process: 8_000 };

/** One tool result to cut: its index in the history and the characters it may keep. */
export interface LiveCut {
  index: number;
  keepChars: number;
}

/**
 * The results to cut so that, in every turn, the results of each budgeted tool type fit its
 * budget together (each keeps an equal share, a shorter one keeps all and leaves the rest to the
 * others). Pure over the history, so a replay cuts the same.
 */
export function planLiveCuts(
  messages: readonly ChatMessage[],
  budgets: Readonly<Record<string, number>>,
): LiveCut[] {
  const cuts: LiveCut[] = [];
  let names = new Map<string, string>();
  let turn: { index: number; tool: string; chars: number }[] = [];
  const flush = () => {
    const byTool = new Map<string, { index: number; chars: number }[]>();
    for (const r of turn) {
      if (budgets[r.tool] === undefined) continue;
      byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r]);
    }
    for (const [tool, results] of byTool) {
      let left = budgets[tool]!;
      if (results.reduce((s, r) => s + r.chars, 0) <= left) continue;
      const sorted = [...results].sort((a, b) => a.chars - b.chars || a.index - b.index);
      sorted.forEach((r, k) => {
        const share = Math.floor(left / (sorted.length - k));
        const keep = Math.min(r.chars, share);
        if (keep < r.chars) cuts.push({ index: r.index, keepChars: keep });
        left -= keep;
      });
    }
    turn = [];
  };
  messages.forEach((m, index) => {
    if (m.role === "assistant") {
      flush();
      names = new Map(m.toolCalls.map((c) => [c.id, c.name]));
    } else if (m.role === "tool") {
      turn.push({ index, tool: names.get(m.toolCallId) ?? "", chars: m.content.length });
    }
  });
  flush();
  return cuts.sort((a, b) => a.index - b.index);
}

/** A result cut to its live share: its head, then where the full text is. */
export function liveCutText(content: string, keepChars: number, spillId: string): string {
  return `${content.slice(0, keepChars)}\n[live output cut to ${keepChars} of ${content.length} characters (this tool type's budget per turn); read all of it with read_spill {"id": "${spillId}"}]`;
}
