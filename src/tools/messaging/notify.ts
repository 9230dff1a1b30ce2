import Type from "typebox";
import { defineTool, type Tool, toolFailure } from "../../catalog/index.js";
import { deliver, messagingReadiness, pickChannel } from "./message-delivery.js";
import { MESSAGE_CHANNELS, type MessageSender } from "./message-port.js";

/** Levels of a notification (shown in the subject). */
export const NOTIFY_LEVELS = ["info", "warning", "error"] as const;

const NotifyParams = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: "One-line summary" }),
    body: Type.String({ minLength: 1, maxLength: 20_000, description: "The notification text" }),
    level: Type.Optional(Type.Enum(NOTIFY_LEVELS, { description: "info (default), warning or error" })),
    channel: Type.Optional(
      Type.Enum(MESSAGE_CHANNELS, { description: "email or webhook (default: the first configured)" }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `notify`: tells the run's owner something (a finished report, a failure) by email or webhook.
 * The recipient is always the owner (`ctx.userId`): the agent cannot pick who is notified.
 */
export function createNotifyTool(sender: MessageSender | undefined): Tool<typeof NotifyParams> {
  return defineTool({
    name: "notify",
    description: "Send a notification to the run's owner (email or webhook).",
    parameters: NotifyParams,
    riskLevel: "write",
    readinessDetail: () => messagingReadiness(sender),
    async execute(args, ctx) {
      if (!sender || sender.channels.length === 0)
        return toolFailure("not_ready", messagingReadiness(sender).detail);
      const channel = pickChannel(sender, args.channel);
      if (!channel) return toolFailure("business", `notify: the ${args.channel} channel is not configured`);
      const level = args.level ?? "info";
      const subject = level === "info" ? args.title : `[${level}] ${args.title}`;
      return deliver(sender, { kind: "notify", channel, to: ctx.userId, subject, text: args.body }, ctx);
    },
  });
}
