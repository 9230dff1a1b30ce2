import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { Journal } from "./journal.js";

const redis = testRedisClient();
const prefix = uniquePrefix("journal-lapse");

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("Journal.lapseClaims", () => {
  it("ends the open claims of a run at once (in doubt, not held) and leaves completed keys as they are", async () => {
    // The Redis server's clock: the script reads TIME, as claims without an injected clock do.
    const journal = new Journal({ redis, keyPrefix: prefix });
    const runId = "run-lapse";
    await journal.claim({ runId, key: "open", owner: "dead-attempt", leaseMs: 600_000 });
    await journal.claim({ runId, key: "done", owner: "dead-attempt", leaseMs: 600_000 });
    await journal.complete({ runId, key: "done", owner: "dead-attempt", result: { ok: true } });
    expect(await journal.claim({ runId, key: "open", owner: "retry", leaseMs: 1000 })).toMatchObject({
      state: "held",
    });

    expect(await journal.lapseClaims(runId)).toBe(1);
    expect(await journal.claim({ runId, key: "open", owner: "retry", leaseMs: 1000 })).toMatchObject({
      state: "in_doubt",
    });
    expect(await journal.claim({ runId, key: "done", owner: "retry", leaseMs: 1000 })).toMatchObject({
      state: "completed",
      record: { result: { ok: true } },
    });
    expect(await journal.lapseClaims("run-without-journal")).toBe(0);
  });
});
