import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../../shared/index.js";
import { parseSince } from "./since-option.js";

const NOW = Date.parse("2026-12-03T12:00:00Z");

describe("--since", () => {
  it.each([
    ["90s", NOW - 90_000],
    ["30m", NOW - 30 * 60_000],
    ["2h", NOW - 2 * 3_600_000],
    ["7d", NOW - 7 * 86_400_000],
    ["2026-12-03T02:00:00Z", Date.parse("2026-12-03T02:00:00Z")],
  ])("reads %s", (text, expected) => {
    expect(parseSince(text, NOW)).toBe(expected);
  });

  it.each(["", "2", "2w", "yesterday", "2026-13-45"])(
    "refuses %j with a usage error naming both forms",
    (text) => {
      let err: unknown;
      try {
        parseSince(text, NOW);
      } catch (e) {
        err = e;
      }
      expect(isRunnerError(err, "CLI_USAGE")).toBe(true);
      expect((err as Error).message).toContain("neither a duration (90s, 30m, 2h, 7d) nor an ISO-8601 time");
    },
  );
});
