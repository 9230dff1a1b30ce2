/**
 * How notify and message reach people: an injected sender (email, webhook), so the tools never
 * hold SMTP or webhook settings themselves and tests use real local servers.
 */

/** Delivery channels. */
export const MESSAGE_CHANNELS = ["email", "webhook"] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/** Which tool sends: notify goes to the run's owner, message to a named recipient. */
export const MESSAGE_KINDS = ["notify", "message"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** One message to deliver. */
export interface OutboundMessage {
  readonly kind: MessageKind;
  readonly channel: MessageChannel;
  /**
   * notify: the owner's user id (the sender looks up where to reach them); message: an email
   * address (email) or a configured webhook's name (webhook).
   */
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The call's idempotency key: Message-ID / Idempotency-Key, so receivers can drop a duplicate. */
  readonly idempotencyKey: string;
  /** Where it comes from, for headers and webhook bodies. */
  readonly origin: { readonly runId: string; readonly agentId: string; readonly userId: string };
}

/** What a delivery produced. */
export interface SentMessage {
  /** The transport's id (Message-ID, webhook name + status). */
  readonly id: string;
  /** Where it went, as a person reads it (an address, a webhook's name). */
  readonly to: string;
}

/** Delivers messages; the worker builds it from `smtp`, `approvers` and webhook config. */
export interface MessageSender {
  /** The channels it can deliver on; none means the messaging tools are not ready. */
  readonly channels: readonly MessageChannel[];
  /** Why this recipient is not reachable or not allowed (fail closed), or undefined. */
  recipientProblem(kind: MessageKind, channel: MessageChannel, to: string): string | undefined;
  /** Delivers one message; throws when the transport fails. */
  send(message: OutboundMessage): Promise<SentMessage>;
}
