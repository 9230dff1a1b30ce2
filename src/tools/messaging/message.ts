import Type from "typebox";
import { defineTool, PASSTHROUGH, type Tool, toolFailure } from "../../catalog/index.js";
import { deliver, messagingReadiness, pickChannel } from "./message-delivery.js";
import { MESSAGE_CHANNELS, type MessageSender } from "./message-port.js";

const MessageParams = Type.Object(
  {
    to: Type.String({
      minLength: 1,
      maxLength: 320,
      description: "An email address (email) or the name of a configured webhook (webhook)",
    }),
    text: Type.String({ minLength: 1, maxLength: 20_000, description: "The message" }),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Subject (email)" })),
    channel: Type.Optional(
      Type.Enum(MESSAGE_CHANNELS, { description: "email or webhook (default: the first configured)" }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `message`: sends a message to a named recipient. Only recipients the sender allows (the address
 * book, allowed addresses or domains, configured webhooks) can be reached; any other is refused in
 * the tool's own permission check, before the gate, and again at delivery.
 */
export function createMessageTool(sender: MessageSender | undefined): Tool<typeof MessageParams> {
  return defineTool({
    name: "message",
    description: "Send a message to an allowed email address or a configured webhook.",
    parameters: MessageParams,
    riskLevel: "write",
    readinessDetail: () => messagingReadiness(sender),
    checkPermissions(args) {
      if (!sender) return PASSTHROUGH;
      const channel = pickChannel(sender, args.channel);
      if (!channel) return PASSTHROUGH;
      const problem = sender.recipientProblem("message", channel, args.to);
      return problem ? { behavior: "deny", reason: `message: ${problem}` } : PASSTHROUGH;
    },
    async execute(args, ctx) {
      if (!sender || sender.channels.length === 0)
        return toolFailure("not_ready", messagingReadiness(sender).detail);
      const channel = pickChannel(sender, args.channel);
      if (!channel) return toolFailure("business", `message: the ${args.channel} channel is not configured`);
      const subject = args.subject ?? `Message from agent ${ctx.agentId}`;
      return deliver(sender, { kind: "message", channel, to: args.to, subject, text: args.text }, ctx);
    },
  });
}
