/**
 * Queue names and the BullMQ key prefix. The prefix is wrapped in a Redis Cluster hash tag
 * (`{echo}`) so every key of every queue lands in one slot: BullMQ's Lua scripts touch several keys
 * of a queue at once, which a cluster only allows within one slot.
 */
export const QUEUE_NAMES = ["agent"] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** The BullMQ prefix for a configured key prefix: `echo` → `{echo}`. */
export function bullPrefix(keyPrefix: string): string {
  return `{${keyPrefix}}`;
}
