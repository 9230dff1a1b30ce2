import { describe, expect, it } from "vitest";
import { defangLinks, summariseArgs } from "./approval-story.js";
import { jsonPayload, slackPayload, teamsPayload } from "./chat-payloads.js";
import type { ApprovalRecord } from "./record.js";

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
  it("never lets agent-controlled text become a Slack link: & < > escaped, URLs defanged", () => {
    const json = JSON.stringify(
      slackPayload({ kind: "request", personal: false, items: [{ record, url: null, task: null }] }),
    );
    expect(json).not.toContain("<https://");
    expect(json).toContain("&lt;https[:]//evil.example/approve|Approve now&gt;");
    expect(json).toContain("decide with the link in your approval mail");
    expect(json).not.toContain('"type":"actions"');
  });

  it("breaks Teams markdown links in agent-controlled text", () => {
    const json = JSON.stringify(
      teamsPayload({ kind: "request", personal: false, items: [{ record, url: null, task: null }] }),
    );
    expect(json).not.toContain("](https");
    expect(json).not.toContain("https://evil");
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
