import { describe, expect, it } from "vitest";
import { formatInstant } from "./schedules-shared.js";

describe("formatInstant", () => {
  it("names UTC once", () => {
    expect(formatInstant(Date.UTC(2026, 11, 3, 13, 35), "UTC")).toBe(
      "2026-12-03T13:35:00.000Z (2026-12-03 13:35:00 UTC)",
    );
  });

  it("keeps the zone's name after its offset elsewhere", () => {
    expect(formatInstant(Date.UTC(2025, 0, 1, 14), "America/New_York")).toBe(
      "2025-01-01T14:00:00.000Z (2025-01-01 09:00:00 GMT-5 America/New_York)",
    );
  });
});
