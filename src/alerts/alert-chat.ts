import { assertNever, type ChatWebhookFormat, neutralise } from "../shared/index.js";
import type { Alert } from "./alert.js";
import { adminLink, alertLine, alertTitle, MAX_LISTED_ALERTS } from "./alert-message.js";

/**
 * The chat body of one alert or a digest, in the webhook's format. As for approval messages
 * (approvals/notify/chat-payloads.ts), text the runner did not write sits only where the service parses no
 * markup: Slack `rich_text` / `plain_text` (the fallback `text` is escaped for mrkdwn), Teams
 * `TextRun`s; every link is the runner's own /admin link.
 */
export function alertChatPayload(
  format: ChatWebhookFormat,
  alerts: readonly Alert[],
  publicUrl: string,
): Record<string, unknown> {
  const listed = alerts.slice(0, MAX_LISTED_ALERTS);
  const more = alerts.length - listed.length;
  switch (format) {
    case "slack":
      return {
        text: alertTitle(alerts, "slack_mrkdwn"),
        blocks: [
          { type: "header", text: { type: "plain_text", text: alertTitle(alerts, "slack").slice(0, 150) } },
          ...listed.flatMap((a, i) => [
            {
              type: "rich_text",
              elements: [
                { type: "rich_text_section", elements: [{ type: "text", text: alertLine(a, "slack") }] },
              ],
            },
            {
              type: "actions",
              elements: [
                {
                  type: "button",
                  text: { type: "plain_text", text: "Open in /admin" },
                  url: adminLink(publicUrl, a),
                  action_id: `alert-${i}`,
                },
              ],
            },
          ]),
          ...(more > 0
            ? [{ type: "context", elements: [{ type: "plain_text", text: `… and ${more} more` }] }]
            : []),
        ],
      };
    case "teams":
      return {
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            contentUrl: null,
            content: {
              $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
              type: "AdaptiveCard",
              version: "1.4",
              body: [
                {
                  type: "RichTextBlock",
                  inlines: [{ type: "TextRun", text: alertTitle(alerts, "teams"), weight: "Bolder" }],
                },
                ...listed.map((a) => ({
                  type: "RichTextBlock",
                  inlines: [{ type: "TextRun", text: alertLine(a, "teams") }],
                })),
                ...(more > 0
                  ? [{ type: "RichTextBlock", inlines: [{ type: "TextRun", text: `… and ${more} more` }] }]
                  : []),
              ],
              actions: listed.slice(0, 5).map((a, i) => ({
                type: "Action.OpenUrl",
                title: listed.length > 1 ? `Open #${i + 1} in /admin` : "Open in /admin",
                url: adminLink(publicUrl, a),
              })),
            },
          },
        ],
      };
    case "json":
      return {
        type: alerts.length === 1 ? "alert" : "alert.digest",
        count: alerts.length,
        alerts: listed.map((a) => ({
          id: neutralise(a.id, "json"),
          kind: a.kind,
          at: new Date(a.at).toISOString(),
          runId: a.runId === null ? null : neutralise(a.runId, "json"),
          agent: neutralise(a.agent, "json"),
          scheduleId: a.scheduleId === null ? null : neutralise(a.scheduleId, "json"),
          code: a.code === null ? null : neutralise(a.code, "json"),
          detail: neutralise(a.detail, "json"),
          url: adminLink(publicUrl, a),
        })),
      };
    default:
      return assertNever(format, "chat webhook format");
  }
}
