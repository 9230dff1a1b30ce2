import {
  type ToolExecutionContext,
  type ToolReadiness,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import type { MessageChannel, MessageKind, MessageSender } from "./message-port.js";

/** Readiness of a messaging tool: a sender with at least one channel. */
export function messagingReadiness(sender: MessageSender | undefined): ToolReadiness {
  if (!sender || sender.channels.length === 0) {
    return {
      ready: false,
      detail: "no message channel is configured (smtp.host or tools.messaging.webhooks)",
    };
  }
  return { ready: true, detail: `delivers by ${sender.channels.join(", ")}` };
}

/** The channel a call uses: the one it names, else the sender's first. Undefined if unavailable. */
export function pickChannel(
  sender: MessageSender,
  wanted: MessageChannel | undefined,
): MessageChannel | undefined {
  if (wanted === undefined) return sender.channels[0];
  return sender.channels.includes(wanted) ? wanted : undefined;
}

/** Delivers one message and turns the outcome into a tool result (never throws). */
export async function deliver(
  sender: MessageSender,
  input: { kind: MessageKind; channel: MessageChannel; to: string; subject: string; text: string },
  ctx: ToolExecutionContext,
): Promise<ToolResult> {
  const problem = sender.recipientProblem(input.kind, input.channel, input.to);
  if (problem) return toolFailure("denied", `${input.kind}: ${problem}`);
  try {
    const sent = await sender.send({
      ...input,
      idempotencyKey: ctx.idempotencyKey,
      origin: { runId: ctx.executionId, agentId: ctx.agentId, userId: ctx.userId },
    });
    return toolSuccess(`Sent by ${input.channel} to ${sent.to}.`, {
      channel: input.channel,
      to: sent.to,
      id: sent.id,
    });
  } catch (err) {
    return toolFailure(
      "business",
      `${input.kind}: delivery by ${input.channel} failed: ${(err as Error).message}`,
    );
  }
}
