import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../model/model-client.js";
import { liveCutText, planLiveCuts } from "./live-output.js";

function turn(calls: [string, number][], offset = 0): ChatMessage[] {
  return [
    {
      role: "assistant",
      content: null,
      toolCalls: calls.map(([name], i) => ({ id: `c${offset + i}`, name, arguments: {} })),
    },
    ...calls.map(
      ([, chars], i): ChatMessage => ({
        role: "tool",
        toolCallId: `c${offset + i}`,
        content: "x".repeat(chars),
      }),
    ),
  ];
}

describe("per-tool-type live output budgets", () => {
  it("leaves a turn alone when each tool type's results fit its budget together", () => {
    expect(
      planLiveCuts(
        turn([
          ["exec", 5000],
          ["exec", 5000],
          ["read_file", 8000],
        ]),
        { exec: 12_000 },
      ),
    ).toEqual([]);
  });

  it("cuts the results of one tool type in one turn to share its budget, shorter ones kept whole", () => {
    const messages = turn([
      ["exec", 8000],
      ["exec", 2000],
      ["exec", 8000],
      ["read_file", 8000],
    ]);
    const cuts = planLiveCuts(messages, { exec: 12_000 });
    // 2,000 kept whole; the two 8,000s share the remaining 10,000; read_file has no live budget.
    expect(cuts).toEqual([
      { index: 1, keepChars: 5000 },
      { index: 3, keepChars: 5000 },
    ]);
  });

  it("budgets each turn on its own", () => {
    const messages = [
      ...turn([
        ["process", 6000],
        ["process", 6000],
      ]),
      ...turn([["process", 6000]], 2),
    ];
    expect(planLiveCuts(messages, { process: 8000 })).toEqual([
      { index: 1, keepChars: 4000 },
      { index: 2, keepChars: 4000 },
    ]);
  });

  it("says how much was kept and where the rest is", () => {
    expect(liveCutText("abcdef", 3, "run/1")).toBe(
      'abc\n[live output cut to 3 of 6 characters (this tool type\'s budget per turn); read all of it with read_spill {"id": "run/1"}]',
    );
  });
});
