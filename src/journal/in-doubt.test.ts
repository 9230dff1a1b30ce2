import { describe, expect, it } from "vitest";
import { recordStanding } from "./in-doubt.fixture.js";
import { type InDoubtAction, type InDoubtInput, resolveInDoubt } from "./in-doubt.js";
import type { JournalRecord } from "./records.js";

describe("resolveInDoubt", () => {
  it.each<[InDoubtInput, InDoubtAction]>([
    [{ readOnlyForArgs: true, idempotent: false, policy: "park" }, "rerun"],
    [{ readOnlyForArgs: true, idempotent: false, policy: "fail" }, "rerun"],
    [{ readOnlyForArgs: false, idempotent: true, policy: "park" }, "rerun"],
    [{ readOnlyForArgs: false, idempotent: true, policy: "fail" }, "rerun"],
    [{ readOnlyForArgs: true, idempotent: true, policy: "fail" }, "rerun"],
    [{ readOnlyForArgs: false, idempotent: false, policy: "park" }, "park"],
    [{ readOnlyForArgs: false, idempotent: false, policy: "fail" }, "fail"],
  ])("decides %j as %s", (input, expected) => {
    expect(resolveInDoubt(input)).toBe(expected);
  });

  it("throws on a policy outside the closed set instead of re-running", () => {
    expect(() =>
      resolveInDoubt({ readOnlyForArgs: false, idempotent: false, policy: "retry" as never }),
    ).toThrow(/in-doubt policy/);
  });
});

describe("recordStanding", () => {
  const started: JournalRecord = {
    v: 1,
    key: "k",
    status: "started",
    owner: "w1",
    attempt: 1,
    claimedAt: 1_000,
    leaseUntil: 2_000,
  };

  it.each([
    [1_999, "live"],
    [2_000, "in_doubt"],
    [5_000, "in_doubt"],
  ])("calls a started record at %i %s", (now, standing) => {
    expect(recordStanding(started, now)).toBe(standing);
  });

  it("calls a completed record completed whatever the lease says", () => {
    expect(recordStanding({ ...started, status: "completed", completedAt: 1_500, result: null }, 9_000)).toBe(
      "completed",
    );
  });
});
