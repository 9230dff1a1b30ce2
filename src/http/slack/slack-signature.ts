import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a Slack request's timestamp may be from our clock, ms (Slack's advice: 5 minutes). */
export const SLACK_TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;

/** Why a Slack request's signature was refused (nothing in it is trusted then). */
export type SlackSignatureRefusal = "stale" | "invalid";

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret, as Slack signs. */
export function slackSignature(secret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

/**
 * Checks Slack's v0 request signature: the timestamp (whole seconds) within
 * {@link SLACK_TIMESTAMP_WINDOW_MS} of `nowMs` either way, then the signature compared in constant
 * time. The timestamp is checked first so an old signed request is `stale` even when it is genuine;
 * a missing or malformed header is `invalid`. Null when the request is Slack's.
 */
export function verifySlackSignature(
  secret: string,
  headers: { timestamp: unknown; signature: unknown },
  rawBody: string,
  nowMs: number,
): SlackSignatureRefusal | null {
  const { timestamp, signature } = headers;
  if (typeof timestamp !== "string" || !/^\d{1,12}$/.test(timestamp)) return "stale";
  if (Math.abs(nowMs - Number(timestamp) * 1000) > SLACK_TIMESTAMP_WINDOW_MS) return "stale";
  if (typeof signature !== "string" || !/^v0=[0-9a-f]{64}$/.test(signature)) return "invalid";
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody), "utf8");
  const presented = Buffer.from(signature, "utf8");
  // Both are 67 ASCII bytes here (the shape was checked), as timingSafeEqual needs.
  return timingSafeEqual(expected, presented) ? null : "invalid";
}
