import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  createPageNonce,
  hashLinkToken,
  newLinkToken,
  secretsEqual,
  verifyPageNonce,
} from "./link-tokens.js";

describe("link tokens", () => {
  it("are 256 random bits in base64url, different each time", () => {
    const a = newLinkToken();
    const b = newLinkToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.token, "base64url")).toHaveLength(32);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(hashLinkToken(a.token));
  });

  it("compares secrets of different lengths without throwing", () => {
    expect(secretsEqual("abc", "abc")).toBe(true);
    expect(secretsEqual("abc", "abcd")).toBe(false);
  });
});

describe("page nonces", () => {
  const secret = randomBytes(32);
  const id = "a".repeat(32);
  const tokenHash = "b".repeat(64);
  const nonce = createPageNonce(secret, id, tokenHash, 1000);

  it("verify for the same request and token within the hour", () => {
    expect(verifyPageNonce(secret, id, tokenHash, nonce, 1000 + 3_599_000)).toBe(true);
  });

  it.each([
    ["another request", () => verifyPageNonce(secret, "c".repeat(32), tokenHash, nonce, 2000)],
    ["another token", () => verifyPageNonce(secret, id, "d".repeat(64), nonce, 2000)],
    ["another secret", () => verifyPageNonce(randomBytes(32), id, tokenHash, nonce, 2000)],
    ["an old page", () => verifyPageNonce(secret, id, tokenHash, nonce, 1000 + 3_600_001)],
    ["a changed time", () => verifyPageNonce(secret, id, tokenHash, nonce.replace(/^1000/, "1001"), 2000)],
    ["a missing nonce", () => verifyPageNonce(secret, id, tokenHash, undefined, 2000)],
    ["garbage", () => verifyPageNonce(secret, id, tokenHash, "x.y", 2000)],
  ])("fail for %s", (_name, check) => {
    expect(check()).toBe(false);
  });
});
