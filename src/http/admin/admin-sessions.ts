import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { randomToken, sha256Hex } from "../../shared/index.js";

/** Cookie that carries the dashboard session id (never a token). */
export const ADMIN_COOKIE = "echo_admin";

const Session = z
  .object({
    /**
     * 3: bound to the token it was opened with (`binding`). Version 1 sessions held a name typed
     * next to the shared token, version 2 only the token's owner, so a rotated token left
     * them open; neither parses any more, so they are signed out rather than trusted.
     */
    v: z.literal(3),
    /** Who logged in (the configured id of the token's owner): the approver of dashboard decisions. */
    operator: z.string().min(1).max(128),
    /** `OperatorCredentials.bindingOf` the operator when the session opened (hex SHA-256). */
    binding: z.string().regex(/^[0-9a-f]{64}$/),
    /** Secret of the session's forms: every POST carries it (the cookie alone never decides). */
    csrf: z.string().min(1),
    createdAt: z.number().int().nonnegative(),
  })
  .strict();
export type AdminSession = z.infer<typeof Session>;

/**
 * Dashboard sessions in Redis, so every HTTP process knows them and logging out ends one at once.
 * The cookie holds a random id; Redis holds only its SHA-256, so a dump of Redis opens no session.
 */
export class AdminSessions {
  readonly #redis: Redis | Cluster;
  readonly #base: string;
  readonly ttlMs: number;

  constructor(redis: Redis | Cluster, keyPrefix: string, ttlMs: number) {
    this.#redis = redis;
    this.#base = `${keyPrefix}:{admin}:session:`;
    this.ttlMs = ttlMs;
  }

  /** Starts a session for `operator` bound to their token's `binding`; returns the id for the cookie. */
  async create(operator: string, binding: string, now: number): Promise<string> {
    const id = randomToken(32);
    const session: AdminSession = { v: 3, operator, binding, csrf: randomToken(32), createdAt: now };
    await this.#redis.set(this.#key(id), JSON.stringify(session), "PX", this.ttlMs);
    return id;
  }

  /** The live session of a cookie value, or null (unknown, expired, malformed). */
  async get(id: string | undefined): Promise<AdminSession | null> {
    if (!id || !/^[A-Za-z0-9_-]{20,100}$/.test(id)) return null;
    const raw = await this.#redis.get(this.#key(id));
    if (raw === null) return null;
    try {
      const parsed = Session.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async destroy(id: string): Promise<void> {
    await this.#redis.del(this.#key(id));
  }

  #key(id: string): string {
    return `${this.#base}${sha256Hex(id)}`;
  }
}

/** The value of one cookie in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
