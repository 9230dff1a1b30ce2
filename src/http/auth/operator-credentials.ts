import { createHash, timingSafeEqual } from "node:crypto";
import { normaliseIdentity, RunnerError } from "../../shared/index.js";

/** Shortest bearer token accepted (an operator's or the read-only metrics token), in characters. */
export const MIN_TOKEN_LENGTH = 32;

/** One person and the token they sign in and call the API with (read from their `token_env`). */
export interface OperatorToken {
  /** The approver id exactly as configured: what decisions record. */
  id: string;
  token: string;
  /** Where the token came from, for error messages (e.g. `approvers[1].token_env (BOB_TOKEN)`). */
  source?: string;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * Checks that a token is long enough; a start-up error (CONFIG_INVALID) naming where it came from
 * otherwise, so a short or placeholder token never guards a decision path.
 */
export function assertTokenStrength(token: string, source: string): void {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new RunnerError(
      "CONFIG_INVALID",
      `${source} holds a token of ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are required (e.g. \`openssl rand -base64 36\`)`,
      { data: { source, minLength: MIN_TOKEN_LENGTH } },
    );
  }
}

/**
 * The named operators' tokens, kept only as SHA-256 digests. {@link identify} compares the
 * presented token's digest with every stored one in constant time and never stops early, so how long
 * it takes says nothing about which entry matched or how close a guess came. Who decides is the
 * token's owner, never a typed name.
 */
export class OperatorCredentials {
  readonly #entries: readonly { id: string; key: string; digest: Buffer }[];

  constructor(tokens: readonly OperatorToken[]) {
    const seenIds = new Set<string>();
    const seenDigests = new Map<string, string>();
    const entries: { id: string; key: string; digest: Buffer }[] = [];
    for (const entry of tokens) {
      const source = entry.source ?? `the token of operator "${entry.id}"`;
      assertTokenStrength(entry.token, source);
      const key = normaliseIdentity(entry.id);
      if (key.length === 0 || seenIds.has(key)) {
        throw new RunnerError("CONFIG_INVALID", `operator "${entry.id}" is empty or listed twice`);
      }
      seenIds.add(key);
      const d = digest(entry.token);
      const twin = seenDigests.get(d.toString("hex"));
      if (twin !== undefined) {
        throw new RunnerError(
          "CONFIG_INVALID",
          `${source} is the same token as operator "${twin}"'s: every person needs a token of their own`,
        );
      }
      seenDigests.set(d.toString("hex"), entry.id);
      entries.push({ id: entry.id, key, digest: d });
    }
    this.#entries = entries;
  }

  /** How many operators have a token. 0: the API and `/admin` are closed (503). */
  get size(): number {
    return this.#entries.length;
  }

  /** The operator whose token this is (their configured id), or null. Constant time over all entries. */
  identify(presented: string): string | null {
    const wanted = digest(presented);
    let found: string | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.digest, wanted) && found === null) found = entry.id;
    }
    return found;
  }

  /**
   * What a dashboard session opened with this operator's token is bound to: a SHA-256 of the
   * token's digest under a label of its own (so Redis never holds the digest itself), or null when
   * the name has no token. A rotated token has another binding, so sessions opened with the old
   * one end.
   */
  bindingOf(name: string): string | null {
    const key = normaliseIdentity(name);
    const entry = this.#entries.find((e) => e.key === key);
    if (entry === undefined) return null;
    return createHash("sha256")
      .update("echo-runner/admin-session-binding/v1\u0000")
      .update(entry.digest)
      .digest("hex");
  }

  /** The configured id of the operator a name refers to (after normalisation), or null. */
  idOf(name: string): string | null {
    const key = normaliseIdentity(name);
    return this.#entries.find((e) => e.key === key)?.id ?? null;
  }
}

/** True when `presented` equals `token` (constant time over their digests); false for an empty `token`. */
export function tokenMatches(presented: string, token: string | undefined): boolean {
  if (!token) return false;
  return timingSafeEqual(digest(presented), digest(token));
}

/** The token of an `Authorization: Bearer <token>` header, or "" (other schemes and no header). */
export function bearerOf(header: unknown): string {
  return typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : "";
}
