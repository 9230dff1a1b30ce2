import { describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../store/index.js";
import { defangLinks, summariseArgs } from "./approval-story.js";
import { jsonPayload, slackPayload, teamsPayload } from "./chat-payloads.js";

const record = {
  id: "a".repeat(32),
  tool: "web_fetch",
  risk: "write",
  reason: "internal address",
  agent: "bot",
  runId: "run-1",
  scheduleId: null,
  parentRunId: null,
  argsCanonical: JSON.stringify({
    url: "<https://evil.example/approve|Approve now> [Approve](https://evil.example/x)",
  }),
  argsHash: "0".repeat(64),
  requestedAt: 0,
  deadline: 3_600_000,
} as unknown as ApprovalRecord;

describe("chat payloads", () => {
  const hostile = {
    ...record,
    reason: "needs ``` *bold* <!channel> <@U123> \u202eexe.txt",
    agent: "bot<!here>",
    argsCanonical: JSON.stringify({
      command:
        "echo ```\n<!channel> <https://evil.example/approve|Approve now> [Approve](https://evil.example/x) **now** \u202egnp.exe",
    }),
  } as ApprovalRecord;
  const message = {
    kind: "request" as const,
    personal: false,
    items: [{ record: hostile, url: null, task: "see <!everyone> ``` https://evil.example" }],
  };

  /** Every string in a payload, with the path of keys that leads to it. */
  function strings(value: unknown, path: string[] = []): { path: string[]; text: string }[] {
    if (typeof value === "string") return [{ path, text: value }];
    if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, [...path, String(i)]));
    if (value && typeof value === "object")
      return Object.entries(value).flatMap(([k, v]) => strings(v, [...path, k]));
    return [];
  }

  it("Slack: agent text sits only in literal rich_text / plain_text, never in mrkdwn; no raw link, mention or U+202E", () => {
    const body = slackPayload(message);
    const json = JSON.stringify(body);
    expect(json).not.toContain("https://");
    expect(json).not.toContain("\u202e");
    expect(json).toContain("\\u202egnp.exe");
    expect(json).not.toContain('"type":"actions"');
    // mrkdwn objects hold only the runner's own words.
    const mrkdwn = strings(body).filter(({ path }) => path.at(-1) === "text");
    const blocks = body.blocks as { type: string; elements?: { type: string; text?: string }[] }[];
    for (const block of blocks) {
      for (const el of block.elements ?? []) {
        if (el.type === "mrkdwn") expect(el.text).not.toMatch(/```|<!|bot|evil/);
      }
    }
    expect(mrkdwn.length).toBeGreaterThan(0);
    // The ``` of the arguments is literal text of a preformatted element, not the end of a code block.
    const args = blocks
      .filter((b) => b.type === "rich_text")
      .flatMap((b) => b.elements as { type: string; elements: { text: string }[] }[])
      .filter((e) => e.type === "rich_text_preformatted")
      .flatMap((e) => e.elements.map((t) => t.text));
    expect(args.join("")).toContain("echo ```⏎<!channel>");
    // The fallback text is parsed as mrkdwn by Slack: escaped.
    expect(body.text).toContain("bot&lt;!here&gt;");
    expect(String(body.text)).not.toContain("<!");
  });

  it("Slack interactive: Approve / Deny buttons carry the request id only, agent text stays neutralised", () => {
    const body = slackPayload({ ...message, interactive: true });
    const json = JSON.stringify(body);
    expect(json).not.toContain("https://");
    expect(json).not.toContain("\u202e");
    const actions = (body.blocks as { type: string; elements?: Record<string, unknown>[] }[]).filter(
      (b) => b.type === "actions",
    );
    expect(actions).toHaveLength(1);
    expect(actions[0]!.elements).toEqual([
      expect.objectContaining({ action_id: "echo_approve", value: hostile.id, style: "primary" }),
      expect.objectContaining({ action_id: "echo_deny", value: hostile.id, style: "danger" }),
    ]);
    for (const el of actions[0]!.elements ?? []) expect(el).not.toHaveProperty("url");
    // The same neutralised words as without buttons: the buttons add nothing an agent wrote.
    const without = slackPayload(message);
    expect((body.blocks as unknown[]).filter((b) => (b as { type: string }).type !== "actions")).toEqual(
      without.blocks,
    );
  });

  it("Teams: agent text sits only in TextRuns (no markdown), never in a TextBlock or FactSet", () => {
    const body = teamsPayload(message);
    const json = JSON.stringify(body);
    expect(json).not.toContain("https://evil");
    expect(json).not.toContain("\u202e");
    const card = (body.attachments as { content: { body: { type: string; text?: string }[] } }[])[0]!.content;
    expect(card.body.some((b) => b.type === "FactSet")).toBe(false);
    for (const block of card.body) {
      if (block.type === "TextBlock") expect(block.text).not.toMatch(/Approve|evil|bot|\*\*/);
    }
    const runs = strings(card.body).filter(({ path }) => path.includes("inlines") && path.at(-1) === "text");
    expect(runs.map((r) => r.text).join(" ")).toContain("[Approve](https[:]//evil.example/x) **now**");
  });

  it("JSON: hidden characters escaped and links defanged in every text field", () => {
    const body = jsonPayload(message);
    const json = JSON.stringify(body);
    expect(json).not.toContain("https://evil");
    expect(json).not.toContain("\u202e");
    expect(body).toMatchObject({ requests: [{ reason: expect.stringContaining("\\u202eexe.txt") }] });
  });

  it("generic JSON lists each request with its url", () => {
    const body = jsonPayload({
      kind: "digest",
      personal: true,
      items: [{ record, url: "https://runner.example/approvals/x?t=y", task: "t" }],
    });
    expect(body).toMatchObject({
      type: "approval.digest",
      personal: true,
      requests: [{ id: record.id, url: "https://runner.example/approvals/x?t=y" }],
    });
  });

  it.each([
    ["https://a.example/x", "https[:]//a.example/x"],
    ["see www.a.example", "see www[.]a.example"],
    ["mailto:x@y.z", "mailto[:]x@y.z"],
    ["ftp://h/p and HTTP://H", "ftp[:]//h/p and HTTP[:]//H"],
  ])("defangs %s", (input, output) => {
    expect(defangLinks(input)).toBe(output);
  });

  it("summarises arguments on one line, cut", () => {
    expect(summariseArgs({ command: "a\nb", n: 2 })).toBe("command=a⏎b n=2");
    expect(summariseArgs({ s: "x".repeat(500) }, 10)).toBe("s=xxxxxxxx…");
  });
});
