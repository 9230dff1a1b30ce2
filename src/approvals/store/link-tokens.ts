import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { randomToken, sha256Hex } from "../../shared/index.js";

/** A link token: 32 random bytes, base64url (43 characters). */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new link token and the hash that is stored (the token itself never is). */
export interface IssuedToken {
  token: string;
  hash: string;
}

/** Makes a random 256-bit link token. */
export function newLinkToken(): IssuedToken {
  const token = randomToken(32);
  return { token, hash: hashLinkToken(token) };
}

/**
 * What the store keeps of a token, as the name of its `t:<hash>` field and in `cur:<approver>`: the
 * first 128 bits of its SHA-256, base64url (22 characters). It is only a lookup key: the token keeps
 * its 256 random bits, and presenting a token that was never issued means finding a second
 * preimage of 128 bits of SHA-256. Earlier releases stored the whole hex SHA-256, twice (64
 * characters each): 84 bytes more per request, enough to put a parked run's request hash in the next
 * allocation size (128 bytes more). Tokens stored that way are still found
 * ({@link legacyLinkTokenHash}).
 */
export function hashLinkToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest().subarray(0, 16).toString("base64url");
}

/**
 * The stored form of a token issued by earlier releases: its hex SHA-256 (64 characters). Looked up
 * after {@link hashLinkToken}, so the links mailed before an upgrade still open and decide once.
 */
export function legacyLinkTokenHash(token: string): string {
  return sha256Hex(token);
}

/** The forms a token may be stored under, the current one first. */
export function linkTokenHashes(token: string): [current: string, legacy: string] {
  return [hashLinkToken(token), legacyLinkTokenHash(token)];
}

/** True when `value` has the shape of a link token (checked before any lookup). */
export function isLinkTokenShape(value: unknown): value is string {
  return typeof value === "string" && TOKEN_PATTERN.test(value);
}

/** Equality of two secrets in constant time (compares their SHA-256 digests, so lengths may differ). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(a), "hex"), Buffer.from(sha256Hex(b), "hex"));
}

/** How long a rendered page's form stays usable: 1 hour. Reloading the page makes a new nonce. */
export const PAGE_NONCE_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * The per-page nonce of the decision form: `<issuedAt>.<HMAC-SHA256(secret, id|tokenHash|issuedAt)>`.
 * It binds a POST to a page rendered for this request and this token, so a bare POST holding only a
 * token (or a token of another request) is refused. It is stateless (an HMAC, not a stored nonce):
 * single use comes from the token, which a decision consumes, so a replayed form finds a used token.
 */
export function createPageNonce(secret: Buffer, id: string, tokenHash: string, issuedAt: number): string {
  return `${issuedAt}.${nonceMac(secret, id, tokenHash, issuedAt)}`;
}

/** Checks a nonce for this request and token, not older than `maxAgeMs` and not from the future. */
export function verifyPageNonce(
  secret: Buffer,
  id: string,
  tokenHash: string,
  nonce: unknown,
  now: number,
  maxAgeMs = PAGE_NONCE_MAX_AGE_MS,
): boolean {
  if (typeof nonce !== "string") return false;
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
  if (!match) return false;
  const issuedAt = Number(match[1]);
  if (issuedAt > now + 60_000 || now - issuedAt > maxAgeMs) return false;
  const expected = Buffer.from(nonceMac(secret, id, tokenHash, issuedAt));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function nonceMac(secret: Buffer, id: string, tokenHash: string, issuedAt: number): string {
  return createHmac("sha256", secret)
    .update(`approval-page|${id}|${tokenHash}|${issuedAt}`)
    .digest("base64url");
}
