import { assertNever, type ChatWebhookFormat } from "../shared/index.js";
import { formatTime } from "./approval-message.js";
import { defangLinks, summariseArgs } from "./approval-story.js";
import type { ApprovalRecord } from "./record.js";

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
  kind: "request" | "reminder" | "digest";
  items: readonly ChatItem[];
  /** Personal: each url is the approver's own link that decides. Channel: no token anywhere. */
  personal: boolean;
}

const CHANNEL_NO_ADMIN = "This channel gets no personal links: decide with the link in your approval mail.";
const CHANNEL_ADMIN =
  "Signed-in operators can decide on /admin; approvers can also use the link in their mail.";

/** A free text cut to `max` characters, defanged, one line. */
function line(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return defangLinks(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

function argsLine(record: ApprovalRecord): string {
  let args: unknown;
  try {
    args = JSON.parse(record.argsCanonical);
  } catch {
    args = record.argsCanonical;
  }
  return defangLinks(summariseArgs(args, 300));
}

function title(kind: ChatMessage["kind"], items: readonly ChatItem[]): string {
  const first = items[0]!.record;
  switch (kind) {
    case "request":
      return `Approval needed: ${first.tool} (${first.risk}) for agent ${first.agent}`;
    case "reminder":
      return `Reminder: ${first.tool} (${first.risk}) for agent ${first.agent} is still waiting`;
    case "digest":
      return `${items.length} more approval requests from ${first.scheduleId ? `schedule ${first.scheduleId}` : `run ${first.runId}`}`;
    default:
      return assertNever(kind, "chat message kind");
  }
}

/** Slack mrkdwn escaping: only &, < and > are control characters (`<url|text>` makes a link). */
function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Slack incoming-webhook body: Block Kit blocks plus the `text` fallback for notifications. */
export function slackPayload(message: ChatMessage): Record<string, unknown> {
  const heading = title(message.kind, message.items);
  const blocks: unknown[] = [{ type: "header", text: { type: "plain_text", text: heading.slice(0, 150) } }];
  for (const item of message.items) {
    const r = item.record;
    blocks.push({
      type: "section",
      fields: [
        { type: "mrkdwn", text: `*Tool*\n\`${slackEscape(r.tool)}\` (${slackEscape(r.risk)})` },
        { type: "mrkdwn", text: `*Agent*\n${slackEscape(r.agent)}` },
        {
          type: "mrkdwn",
          text: r.scheduleId ? `*Schedule*\n${slackEscape(r.scheduleId)}` : `*Run*\n${slackEscape(r.runId)}`,
        },
        { type: "mrkdwn", text: `*Deadline*\n${formatTime(r.deadline)}` },
      ],
    });
    blocks.push({
      type: "section",
      text: {
        type: "mrkdwn",
        text: `*Reason:* ${slackEscape(line(r.reason, 300))}\n\`\`\`${slackEscape(argsLine(r))}\`\`\`\nRequest \`${r.id}\``,
      },
    });
    if (item.task !== null) {
      blocks.push({
        type: "context",
        elements: [{ type: "mrkdwn", text: `Task: ${slackEscape(line(item.task, 300))}` }],
      });
    }
    if (item.url !== null) {
      blocks.push({
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: message.personal ? "Review and decide" : "Open in /admin" },
            url: item.url,
            ...(message.personal ? { style: "primary" } : {}),
            action_id: `open-${r.id.slice(0, 32)}`,
          },
        ],
      });
    }
    blocks.push({ type: "divider" });
  }
  if (!message.personal) {
    const hasAdmin = message.items.some((i) => i.url !== null);
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: hasAdmin ? CHANNEL_ADMIN : CHANNEL_NO_ADMIN }],
    });
  }
  return { text: heading, blocks };
}

/** Teams markdown would make `[x](url)` a link: break the pattern (a zero-width space). */
function teamsText(text: string): string {
  return text.replace(/\]\(/g, "]\u200b(");
}

/** A Microsoft Teams incoming-webhook / workflow body: one Adaptive Card (1.4). */
export function teamsPayload(message: ChatMessage): Record<string, unknown> {
  const body: unknown[] = [
    {
      type: "TextBlock",
      text: teamsText(title(message.kind, message.items)),
      weight: "Bolder",
      size: "Medium",
      wrap: true,
    },
  ];
  const actions: unknown[] = [];
  for (const item of message.items) {
    const r = item.record;
    body.push(
      {
        type: "FactSet",
        facts: [
          { title: "Tool", value: teamsText(`${r.tool} (${r.risk})`) },
          { title: "Agent", value: teamsText(r.agent) },
          r.scheduleId
            ? { title: "Schedule", value: teamsText(r.scheduleId) }
            : { title: "Run", value: teamsText(r.runId) },
          { title: "Reason", value: teamsText(line(r.reason, 300)) },
          { title: "Deadline", value: formatTime(r.deadline) },
          { title: "Request", value: r.id },
        ],
      },
      { type: "TextBlock", text: teamsText(argsLine(r)), fontType: "Monospace", wrap: true },
    );
    if (item.task !== null) {
      body.push({
        type: "TextBlock",
        text: teamsText(`Task: ${line(item.task, 300)}`),
        isSubtle: true,
        wrap: true,
      });
    }
    if (item.url !== null) {
      actions.push({
        type: "Action.OpenUrl",
        title:
          message.items.length > 1
            ? `Open ${r.tool} #${actions.length + 1}`
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
    type: `approval.${message.kind === "request" ? "requested" : message.kind}`,
    personal: message.personal,
    requests: message.items.map(({ record: r, url, task }) => ({
      id: r.id,
      tool: r.tool,
      risk: r.risk,
      reason: r.reason,
      agent: r.agent,
      runId: r.runId,
      scheduleId: r.scheduleId,
      parentRunId: r.parentRunId,
      argsSummary: argsLine(r),
      argsHash: r.argsHash,
      requestedAt: new Date(r.requestedAt).toISOString(),
      deadline: new Date(r.deadline).toISOString(),
      task: task === null ? null : line(task, 1000),
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
