import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";
import { SLACK_TIMESTAMP_WINDOW_MS } from "./slack-signature.js";

/**
 * Remembers every verified Slack request's signature for twice the timestamp window (a request is
 * accepted from 5 minutes before to 5 minutes after our clock), so a captured request presented
 * again within the window is refused, by every HTTP process (one Redis key, `{http}` hash tag).
 * Only verified requests are remembered: junk cannot fill Redis. The key holds a SHA-256 of the
 * signature, never the signature itself.
 */
export class SlackReplayGuard {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;

  constructor(redis: Redis | Cluster, keyPrefix: string) {
    this.#redis = redis;
    this.#prefix = `${keyPrefix}:{http}:slack-seen:`;
  }

  /** True the first time this signature is presented, false for a replay (SET NX, atomic). */
  async firstSeen(signature: string): Promise<boolean> {
    const key = this.#prefix + createHash("sha256").update(signature).digest("base64url");
    const set = await this.#redis.set(key, "1", "PX", 2 * SLACK_TIMESTAMP_WINDOW_MS, "NX");
    return set === "OK";
  }
}
