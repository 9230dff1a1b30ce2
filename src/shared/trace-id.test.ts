import { describe, expect, it } from "vitest";
import { otelTraceId } from "./trace-id.js";

describe("otelTraceId", () => {
  it("keeps a UUID's own digits, lowercased", () => {
    expect(otelTraceId("0F8FAD5B-D9CB-469F-A165-70867728950E")).toBe("0f8fad5bd9cb469fa16570867728950e");
  });

  it.each([["trace-run-1"], ["t"], ["00000000-0000-0000-0000-000000000000"]])(
    "hashes %s to 32 hex digits, the same every time",
    (id) => {
      const first = otelTraceId(id);
      expect(first).toMatch(/^[0-9a-f]{32}$/);
      expect(first).not.toMatch(/^0+$/);
      expect(otelTraceId(id)).toBe(first);
    },
  );

  it("gives different trees different ids", () => {
    expect(otelTraceId("trace-a")).not.toBe(otelTraceId("trace-b"));
  });
});
