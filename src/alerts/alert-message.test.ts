import { describe, expect, it } from "vitest";
import type { Alert } from "./alert.js";
import { alertChatPayload } from "./alert-chat.js";
import { composeAlertMail, MAX_LISTED_ALERTS } from "./alert-message.js";

const RLO = "\u202e";
const URL_BASE = "https://runner.example.test/";

function alert(n: number, patch: Partial<Alert> = {}): Alert {
  return {
    v: 1,
    id: `run_failed:run-${n}`,
    kind: "run_failed",
    at: Date.UTC(2026, 0, 2, 3, 4, 5),
    runId: `run-${n}`,
    agent: "nightly",
    scheduleId: "nightly",
    owner: "ann",
    code: "MODEL_AUTH_FAILED",
    detail: `see https://evil.example/login <!channel> file${RLO}gnp.sh`,
    ...patch,
  };
}

describe("alert messages", () => {
  it("names the failure and links the run's /admin page, with the detail neutralised", () => {
    const mail = composeAlertMail([alert(1)], URL_BASE);
    expect(mail.subject).toBe("[echo-runner] run failed: schedule nightly (MODEL_AUTH_FAILED)");
    expect(mail.text).toContain("https://runner.example.test/admin/runs/run-1");
    expect(mail.text).toContain("2026-01-02 03:04:05 UTC");
    expect(mail.text).not.toContain("https://evil.example");
    expect(mail.text).toContain("https[:]//evil");
    expect(mail.text).not.toContain(RLO);
    expect(mail.html).not.toContain("<!channel>");
  });

  it("lists a digest's alerts up to the limit and counts the rest", () => {
    const many = Array.from({ length: MAX_LISTED_ALERTS + 3 }, (_, i) => alert(i));
    const mail = composeAlertMail(many, URL_BASE);
    expect(mail.subject).toBe(`[echo-runner] ${many.length} alerts from schedule nightly`);
    expect(mail.text).toContain("… and 3 more");
    expect(mail.text.match(/\/admin\/runs\//g)).toHaveLength(MAX_LISTED_ALERTS);
  });

  it("links a missed firing, which has no run, to /admin", () => {
    const missed = alert(1, { kind: "schedule_missed", runId: null, id: "schedule_missed:nightly:1" });
    expect(composeAlertMail([missed], URL_BASE).text).toContain("https://runner.example.test/admin\n");
  });

  it("puts agent text only in Slack's literal elements and escapes the mrkdwn fallback", () => {
    const body = alertChatPayload("slack", [alert(1, { agent: "<!channel>", scheduleId: null })], URL_BASE);
    const json = JSON.stringify(body);
    expect(body.text).toContain("&lt;!channel&gt;");
    expect(json).not.toContain(RLO);
    expect(json).not.toContain("https://evil.example");
    expect(json).toContain("https://runner.example.test/admin/runs/run-1");
  });

  it("writes the generic JSON body with each alert's code and link", () => {
    const body = alertChatPayload("json", [alert(1), alert(2)], URL_BASE) as {
      type: string;
      alerts: { code: string; url: string }[];
    };
    expect(body.type).toBe("alert.digest");
    expect(body.alerts.map((a) => a.url)).toEqual([
      "https://runner.example.test/admin/runs/run-1",
      "https://runner.example.test/admin/runs/run-2",
    ]);
  });
});
