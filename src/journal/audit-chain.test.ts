import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../shared/index.js";
import { AUDIT_APPEND_LUA, AUDIT_READ_TRACE_LUA, chainHashOfJson, GENESIS_HASH } from "./audit-chain.js";

describe("chainHashOfJson", () => {
  const entry = {
    kind: "decision",
    traceId: "t-1",
    detail: { ünïcode: "\u2028", nested: [1, null, { b: 2, a: 1 }] },
    seq: 7,
    v: 1,
  };

  it("is the hash of the canonical JSON of { prev, entry }, the chain's definition", () => {
    const json = canonicalJson(entry);
    const prev = "ab".repeat(32);
    expect(chainHashOfJson(GENESIS_HASH, json)).toBe(
      sha256Hex(canonicalJson({ prev: GENESIS_HASH, entry: JSON.parse(json) })),
    );
    const material = canonicalJson({ prev, entry });
    expect(chainHashOfJson(prev, json, "hmac-key")).toBe(
      createHmac("sha256", "hmac-key").update(material, "utf8").digest("hex"),
    );
  });
});

describe("the audit scripts", () => {
  it("start the chain from the client's genesis hash (written out in their .lua files)", () => {
    for (const lua of [AUDIT_APPEND_LUA, AUDIT_READ_TRACE_LUA]) expect(lua).toContain(`'${GENESIS_HASH}'`);
  });
});
