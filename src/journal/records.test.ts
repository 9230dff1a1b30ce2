import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { decodeState, JournalState, toRecord } from "./records.js";

// Records exactly as v1 scripts write them (cjson key order is arbitrary). They must keep parsing.
const V1_STARTED =
  '{"leaseUntil":1700000030000,"owner":"worker-a:job-1:1","v":1,"attempt":1,"status":"started","claimedAt":1700000000000}';
const V1_COMPLETED =
  '{"completedAt":1700000001000,"leaseUntil":1700000030000,"owner":"worker-a:job-1:1","v":1,"attempt":2,"status":"completed","claimedAt":1700000000000}';

describe("journal record fixtures", () => {
  it("decodes a v1 started record", () => {
    expect(toRecord("run", "k", decodeState("run", "k", V1_STARTED), null)).toEqual({
      v: 1,
      key: "k",
      status: "started",
      owner: "worker-a:job-1:1",
      attempt: 1,
      claimedAt: 1_700_000_000_000,
      leaseUntil: 1_700_000_030_000,
    });
  });

  it("decodes a v1 completed record with its result", () => {
    const record = toRecord(
      "run",
      "k",
      decodeState("run", "k", V1_COMPLETED),
      '{"output":"ok","success":true}',
    );
    expect(record).toMatchObject({
      status: "completed",
      attempt: 2,
      result: { success: true, output: "ok" },
    });
  });

  it.each([
    ["a negative attempt", V1_STARTED.replace('"attempt":1', '"attempt":-1'), "attempt"],
    ["a missing owner", V1_STARTED.replace('"owner":"worker-a:job-1:1",', ""), "owner"],
    [
      "a completed record without completedAt",
      V1_COMPLETED.replace('"completedAt":1700000001000,', ""),
      "completedAt",
    ],
  ])("names the field of %s in the JOURNAL_CORRUPT error", (_label, raw, field) => {
    let thrown: unknown;
    try {
      decodeState("run-9", "key-9", raw);
    } catch (err) {
      thrown = err;
    }
    expect(isRunnerError(thrown, "JOURNAL_CORRUPT")).toBe(true);
    expect((thrown as Error).message).toContain(field);
    expect((thrown as Error).message).toContain("run-9");
  });
});

describe("the hand-written state check", () => {
  const started = { v: 1, owner: "o", attempt: 1, claimedAt: 5, leaseUntil: 9, status: "started" };
  const shapes: unknown[] = [
    started,
    { ...started, status: "completed", completedAt: 3 },
    { ...started, status: "completed" },
    { ...started, completedAt: 1 },
    { ...started, extra: 1 },
    { ...started, v: 2 },
    { ...started, owner: "" },
    { ...started, attempt: 0 },
    { ...started, attempt: 1.5 },
    { ...started, attempt: "1" },
    { ...started, claimedAt: -1 },
    { ...started, leaseUntil: 2 ** 60 },
    { ...started, status: "x" },
    [],
    null,
    3,
  ];

  it("accepts exactly what the zod schema accepts", () => {
    for (const shape of shapes) {
      let decoded = true;
      try {
        decodeState("run", "k", JSON.stringify(shape));
      } catch (err) {
        expect(isRunnerError(err, "JOURNAL_CORRUPT")).toBe(true);
        decoded = false;
      }
      expect([JSON.stringify(shape), decoded]).toEqual([
        JSON.stringify(shape),
        JournalState.safeParse(shape).success,
      ]);
    }
  });

  it("refuses an own __proto__ key, as the strict schema does", () => {
    const text = JSON.stringify(started).replace("}", ',"__proto__":{}}');
    expect(() => decodeState("run", "k", text)).toThrow(/JOURNAL_CORRUPT|corrupt/);
  });
});
