import { describe, expect, it } from "vitest";
import { normaliseIdentity, sameIdentity } from "./identity.js";

describe("normaliseIdentity", () => {
  it.each([
    ["alice", "alice"],
    ["Alice", "alice"],
    ["ALICE", "alice"],
    ["alice ", "alice"],
    ["  alice\t", "alice"],
    ["ａｌｉｃｅ", "alice"], // full-width letters (NFKC)
    ["al\u200bice", "alice"], // zero-width space
    ["\u202ealice", "alice"], // bidi override
    ["alice\u00a0", "alice"], // no-break space
    ["Ann  Lee", "ann lee"],
    ["Ann\nLee", "ann lee"],
    ["STRASSE", "strasse"],
    ["straße", "strasse"],
    ["ﬁona", "fiona"], // ligature
  ])("reads %j as %j", (raw, normal) => {
    expect(normaliseIdentity(raw)).toBe(normal);
  });

  it("keeps different people different", () => {
    expect(sameIdentity("alice", "alice.")).toBe(false);
    expect(sameIdentity("alice", "alicia")).toBe(false);
    expect(sameIdentity("ann lee", "annlee")).toBe(false);
  });

  it("is idempotent", () => {
    for (const raw of ["Ａlice ", "İstanbul", "ǅemal", "ß", "\u1e9e"]) {
      const once = normaliseIdentity(raw);
      expect(normaliseIdentity(once)).toBe(once);
    }
  });
});
