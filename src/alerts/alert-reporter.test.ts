import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../test/helpers/test-redis.js";
import { createLogger } from "../logging/index.js";
import { ALERT_KINDS, type AlertKind, ManualClock } from "../shared/index.js";
import { AlertOutbox } from "./alert-outbox.js";
import { AlertReporter } from "./alert-reporter.js";

const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefixes: string[] = [];

afterAll(async () => {
  for (const p of prefixes) await deleteKeysWithPrefix(redis, p);
  redis.disconnect();
});

const SECRET = "sk-live-0123456789abcdef";

function setup(kinds: readonly AlertKind[] = ALERT_KINDS) {
  const keyPrefix = uniquePrefix("alert-reporter");
  prefixes.push(keyPrefix);
  const clock = new ManualClock(1_000_000);
  const outbox = new AlertOutbox({ redis, keyPrefix, gatherMs: 0, windowMs: 60_000, clock });
  const reporter = new AlertReporter({
    outbox,
    kinds,
    scheduleFailures: 3,
    secrets: [SECRET],
    logger,
    clock,
  });
  const stored = async () => {
    const batches = await Promise.all((await outbox.dueGroups()).map((gid) => outbox.take(gid)));
    return batches.flatMap((b) => b?.alerts ?? []);
  };
  return { reporter, stored };
}

const run = (n: number, scheduleId: string | null = "nightly") => ({
  runId: `run-${n}`,
  agent: "nightly",
  scheduleId,
  owner: "ann",
});

describe("AlertReporter", () => {
  it("alerts once when a schedule fails the configured number of times in a row, not again after", async () => {
    const { reporter, stored } = setup();
    for (let i = 1; i <= 5; i++) await reporter.runFailed(run(i), "MODEL_AUTH_FAILED", "refused");
    const alerts = await stored();
    expect(alerts.filter((a) => a.kind === "run_failed")).toHaveLength(5);
    expect(alerts.filter((a) => a.kind === "schedule_failing").map((a) => a.runId)).toEqual(["run-3"]);
  });

  it("starts the streak again after a run that ended well", async () => {
    const { reporter, stored } = setup();
    await reporter.runFailed(run(1), null, "x");
    await reporter.runFailed(run(2), null, "x");
    await reporter.runSucceeded("nightly");
    await reporter.runFailed(run(3), null, "x");
    await reporter.runFailed(run(4), null, "x");
    expect((await stored()).filter((a) => a.kind === "schedule_failing")).toEqual([]);
  });

  it("masks every secret of the config in what it stores", async () => {
    const { reporter, stored } = setup();
    await reporter.runFailed(run(1, null), "MODEL_AUTH_FAILED", `the server refused key ${SECRET}`);
    const [alert] = await stored();
    expect(alert?.detail).toBe("the server refused key [redacted]");
  });

  it("reports only the kinds alerts.on lists", async () => {
    const { reporter, stored } = setup(["call_expired"]);
    await reporter.runFailed(run(1), "MODEL_AUTH_FAILED", "refused");
    await reporter.callExpired(run(2), "apr-1", "exec");
    expect((await stored()).map((a) => a.kind)).toEqual(["call_expired"]);
  });
});
