import { assertNever, type ChatWebhookFormat, type NeutralSink, neutralise } from "../../shared/index.js";
import type { ApprovalRecord } from "../store/index.js";
import { formatTime, type MessageKind } from "./approval-message.js";
import { summariseArgs } from "./approval-story.js";

/** One request in a chat message, with where its button leads. */
export interface ChatItem {
  record: ApprovalRecord;
  /** The approver's personal link (personal webhooks), the /admin page (channels), or null. */
  url: string | null;
  /** The run's task, when it could be read. */
  task: string | null;
}

/** What a chat message says: one request, a reminder, or a digest of several. */
export interface ChatMessage {
  kind: MessageKind;
  items: readonly ChatItem[];
  /** Personal: each url is the approver's own link that decides. Channel: no token anywhere. */
  personal: boolean;
  /**
   * Slack only: Approve / Deny buttons that post to the runner's `POST /slack/interactions` (the
   * Slack app's interactivity, `notifications.slack.signing_secret_env`). They carry no token: the
   * clicker is who Slack's signed request says, mapped to an approver by `slack_user_id`, so they
   * are safe in a channel too. Default false.
   */
  interactive?: boolean;
}

/** The action ids of the Slack buttons (the HTTP route maps them back: approve | deny). */
export const SLACK_APPROVE_ACTION = "echo_approve";
export const SLACK_DENY_ACTION = "echo_deny";

const CHANNEL_NO_ADMIN = "This channel gets no personal links: decide with the link in your approval mail.";
const CHANNEL_ADMIN =
  "Signed-in operators can decide on /admin; approvers can also use the link in their mail.";

/** A free text cut to `max` characters, on one line, neutralised for `sink`. */
function line(text: string, max: number, sink: NeutralSink): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return neutralise(flat.length > max ? `${flat.slice(0, max)}…` : flat, sink);
}

function argsLine(record: ApprovalRecord, sink: NeutralSink): string {
  let args: unknown;
  try {
    args = JSON.parse(record.argsCanonical);
  } catch {
    args = record.argsCanonical;
  }
  return neutralise(summariseArgs(args, 300), sink);
}

function title(kind: ChatMessage["kind"], items: readonly ChatItem[], sink: NeutralSink): string {
  return neutralise(rawTitle(kind, items), sink);
}

function rawTitle(kind: ChatMessage["kind"], items: readonly ChatItem[]): string {
  const first = items[0]!.record;
  switch (kind) {
    case "request":
      return `Approval needed: ${first.tool} (${first.risk}) for agent ${first.agent}`;
    case "reminder":
      return `Reminder: ${first.tool} (${first.risk}) for agent ${first.agent} is still waiting`;
    case "escalation":
      return `Escalated: ${first.tool} (${first.risk}) for agent ${first.agent} has waited with no decision`;
    case "digest":
      return `${items.length} more approval requests from ${first.scheduleId ? `schedule ${first.scheduleId}` : `run ${first.runId}`}`;
    default:
      return assertNever(kind, "chat message kind");
  }
}

/** Literal text in a Slack rich_text element: Slack parses no markup, mention or link in it. */
function richText(
  text: string,
  style?: { bold?: true; italic?: true; code?: true },
): Record<string, unknown> {
  return { type: "text", text, ...(style ? { style } : {}) };
}

/**
 * A Slack incoming-webhook body: Block Kit blocks plus the `text` fallback for notifications. Every
 * value the runner did not write sits in `rich_text` elements or `plain_text` (literal: a ``` or
 * `<!channel>` in an argument stays text); the fallback, which Slack parses as mrkdwn, is escaped.
 */
export function slackPayload(message: ChatMessage): Record<string, unknown> {
  const heading = title(message.kind, message.items, "slack");
  const blocks: unknown[] = [{ type: "header", text: { type: "plain_text", text: heading.slice(0, 150) } }];
  for (const item of message.items) {
    const r = item.record;
    const value = (text: string) => richText(neutralise(text, "slack"));
    const facts: unknown[] = [
      richText("Tool: ", { bold: true }),
      value(`${r.tool} (${r.risk})`),
      richText("\nAgent: ", { bold: true }),
      value(r.agent),
      richText(r.scheduleId ? "\nSchedule: " : "\nRun: ", { bold: true }),
      value(r.scheduleId ?? r.runId),
      richText("\nDeadline: ", { bold: true }),
      richText(formatTime(r.deadline)),
      richText("\nReason: ", { bold: true }),
      richText(line(r.reason, 300, "slack")),
    ];
    if (item.task !== null)
      facts.push(
        richText("\nTask: ", { bold: true }),
        richText(line(item.task, 300, "slack"), { italic: true }),
      );
    blocks.push({
      type: "rich_text",
      elements: [
        { type: "rich_text_section", elements: facts },
        { type: "rich_text_preformatted", elements: [richText(argsLine(r, "slack"))] },
        { type: "rich_text_section", elements: [richText("Request "), richText(r.id, { code: true })] },
      ],
    });
    const buttons: unknown[] = [];
    if (message.interactive === true) {
      // The value is the request id (32 hex characters): nothing else the click could be about.
      buttons.push(
        {
          type: "button",
          text: { type: "plain_text", text: "Approve" },
          style: "primary",
          action_id: SLACK_APPROVE_ACTION,
          value: r.id,
        },
        {
          type: "button",
          text: { type: "plain_text", text: "Deny" },
          style: "danger",
          action_id: SLACK_DENY_ACTION,
          value: r.id,
        },
      );
    }
    if (item.url !== null) {
      buttons.push({
        type: "button",
        text: { type: "plain_text", text: message.personal ? "Review and decide" : "Open in /admin" },
        url: item.url,
        ...(message.personal && message.interactive !== true ? { style: "primary" } : {}),
        action_id: `open-${r.id.slice(0, 32)}`,
      });
    }
    if (buttons.length > 0) blocks.push({ type: "actions", block_id: `req-${r.id}`, elements: buttons });
    blocks.push({ type: "divider" });
  }
  if (!message.personal) {
    const hasAdmin = message.items.some((i) => i.url !== null);
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: hasAdmin ? CHANNEL_ADMIN : CHANNEL_NO_ADMIN }],
    });
  }
  return { text: title(message.kind, message.items, "slack_mrkdwn"), blocks };
}

/** A Teams RichTextBlock of TextRuns: Adaptive Cards parse no markdown in a TextRun. */
function teamsRuns(
  runs: readonly Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { type: "RichTextBlock", inlines: runs.map((r) => ({ type: "TextRun", ...r })), ...extra };
}

function teamsFact(label: string, value: string): Record<string, unknown> {
  return teamsRuns([{ text: `${label}: `, weight: "Bolder" }, { text: value }]);
}

/**
 * A Microsoft Teams incoming-webhook / workflow body: one Adaptive Card (1.4). Values the runner did
 * not write are TextRuns of RichTextBlocks, which Teams shows as written: `[x](url)`, `**`, `#` and
 * lists stay text (TextBlock and FactSet would render them as markdown).
 */
export function teamsPayload(message: ChatMessage): Record<string, unknown> {
  const body: unknown[] = [
    teamsRuns([{ text: title(message.kind, message.items, "teams"), weight: "Bolder", size: "Medium" }]),
  ];
  const actions: unknown[] = [];
  for (const item of message.items) {
    const r = item.record;
    const v = (text: string) => neutralise(text, "teams");
    body.push(
      teamsFact("Tool", v(`${r.tool} (${r.risk})`)),
      teamsFact("Agent", v(r.agent)),
      r.scheduleId ? teamsFact("Schedule", v(r.scheduleId)) : teamsFact("Run", v(r.runId)),
      teamsFact("Reason", line(r.reason, 300, "teams")),
      teamsFact("Deadline", formatTime(r.deadline)),
      teamsFact("Request", r.id),
      teamsRuns([{ text: argsLine(r, "teams"), fontType: "Monospace" }]),
    );
    if (item.task !== null) {
      body.push(teamsRuns([{ text: `Task: ${line(item.task, 300, "teams")}`, isSubtle: true }]));
    }
    if (item.url !== null) {
      actions.push({
        type: "Action.OpenUrl",
        title:
          message.items.length > 1
            ? `Open ${v(r.tool)} #${actions.length + 1}`
            : message.personal
              ? "Review and decide"
              : "Open in /admin",
        url: item.url,
      });
    }
  }
  if (!message.personal) {
    const hasAdmin = message.items.some((i) => i.url !== null);
    body.push({
      type: "TextBlock",
      text: hasAdmin ? CHANNEL_ADMIN : CHANNEL_NO_ADMIN,
      wrap: true,
      isSubtle: true,
    });
  }
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
          body,
          ...(actions.length > 0 ? { actions } : {}),
        },
      },
    ],
  };
}

/**
 * The generic JSON body: `{type, personal, requests: [{id, tool, risk, reason, agent, runId,
 * scheduleId, parentRunId, argsSummary, argsHash, deadline, task, url}]}` with `type`
 * `approval.requested` | `approval.reminder` | `approval.digest`.
 */
export function jsonPayload(message: ChatMessage): Record<string, unknown> {
  return {
    type: `approval.${message.kind === "request" ? "requested" : message.kind === "escalation" ? "escalated" : message.kind}`,
    personal: message.personal,
    requests: message.items.map(({ record: r, url, task }) => ({
      id: r.id,
      tool: neutralise(r.tool, "json"),
      risk: r.risk,
      reason: neutralise(r.reason, "json"),
      agent: neutralise(r.agent, "json"),
      runId: neutralise(r.runId, "json"),
      scheduleId: r.scheduleId === null ? null : neutralise(r.scheduleId, "json"),
      parentRunId: r.parentRunId === null ? null : neutralise(r.parentRunId, "json"),
      argsSummary: argsLine(r, "json"),
      argsHash: r.argsHash,
      requestedAt: new Date(r.requestedAt).toISOString(),
      deadline: new Date(r.deadline).toISOString(),
      task: task === null ? null : line(task, 1000, "json"),
      url,
    })),
  };
}

/** The body for a format. */
export function chatPayload(format: ChatWebhookFormat, message: ChatMessage): Record<string, unknown> {
  switch (format) {
    case "slack":
      return slackPayload(message);
    case "teams":
      return teamsPayload(message);
    case "json":
      return jsonPayload(message);
    default:
      return assertNever(format, "chat webhook format");
  }
}
