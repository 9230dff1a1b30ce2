import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every depth, drops undefined members and writes undefined items as null", () => {
    expect(
      canonicalJson({ b: [3, undefined, { z: 1, a: undefined, é: "x" }], a: null, c: { y: true, x: -0 } }),
    ).toBe('{"a":null,"b":[3,null,{"z":1,"é":"x"}],"c":{"x":0,"y":true}}');
    expect(canonicalJson({ B: 1, a: 2, _: 3 })).toBe('{"B":1,"_":3,"a":2}');
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
    expect(canonicalJson({ only: undefined })).toBe("{}");
    expect(canonicalJson('line\u2028"quoted"')).toBe(JSON.stringify('line\u2028"quoted"'));
    expect(canonicalJson(new Date(0))).toBe('"1970-01-01T00:00:00.000Z"');
  });

  it("refuses what JSON would change or cannot hold", () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson([() => 1])).toThrow(/cannot encode a function/);
    expect(() => canonicalJson({ big: 1n })).toThrow(/cannot encode a bigint/);
    const cycle: Record<string, unknown> = {};
    cycle.self = { back: cycle };
    expect(() => canonicalJson(cycle)).toThrow(/circular/);
  });

  it("accepts the same object twice side by side (only cycles are refused)", () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: [shared, shared] })).toBe('{"a":{"k":1},"b":[{"k":1},{"k":1}]}');
  });

  it("is left clean by a refusal: what was open when it threw is not taken for a cycle next time", () => {
    const holder: Record<string, unknown> = { bad: Number.POSITIVE_INFINITY };
    expect(() => canonicalJson({ holder })).toThrow(/non-finite/);
    holder.bad = 1;
    expect(canonicalJson({ holder })).toBe('{"holder":{"bad":1}}');
  });

  it("sorts many keys and keys beyond the quoted-key cache the same way", () => {
    const many: Record<string, number> = {};
    for (let i = 40; i > 0; i--) many[`k${i}`] = i;
    expect(canonicalJson(many)).toBe(JSON.stringify(Object.fromEntries(Object.entries(many).sort())));
    for (let i = 0; i < 3000; i++)
      expect(canonicalJson({ [`key-${i}`]: i, a: 0 })).toBe(`{"a":0,"key-${i}":${i}}`);
  });
});
