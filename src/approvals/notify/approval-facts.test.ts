import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { ManualClock } from "../../shared/index.js";
import { ApprovalStore } from "../store/index.js";
import { composeMessage, requestFacts } from "./approval-message.js";

/** The facts an approver reads: the reason once, the findings apart, and what the call does. */
let redis: Redis;
const prefix = uniquePrefix("facts");
beforeAll(() => {
  redis = testRedisClient();
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

const REASON =
  "Tool \"exec\" (exec) needs a person's approval (rm recursively deletes drafts; unattended run, and the schedule's cron grant covers only unflagged calls, and this call is flagged)";

let requests = 0;

async function registered(input: {
  tool: string;
  args: unknown;
  risk: "exec" | "read_only";
  flags: string[];
}) {
  const store = new ApprovalStore({
    redis,
    keyPrefix: prefix,
    clock: new ManualClock(1_700_000_000_000),
    policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "alice", email: null }] },
  });
  requests += 1;
  const { record } = await store.register({
    runId: `run-${requests}`,
    jobId: `job-${requests}`,
    traceId: "trace-facts",
    idempotencyKey: `k-${requests}`,
    tool: input.tool,
    args: input.args,
    risk: input.risk,
    flags: input.flags,
    reason: REASON,
    agent: "nightly",
    channel: "cron",
  });
  return record;
}

describe("approval facts", () => {
  it("show the reason once, the findings as ids, and the consequence of a recursive delete", async () => {
    const record = await registered({
      tool: "exec",
      args: { command: "rm -rf drafts" },
      risk: "exec",
      flags: ["soft.recursive-delete"],
    });
    const facts = Object.fromEntries(requestFacts(record));
    expect(facts.Reason).toBe(REASON);
    expect(facts.Flags).toBe("soft.recursive-delete");
    expect(facts.Effect).toBe("Deletes files in the workspace.");
    const { text } = composeMessage("request", record, null);
    expect(text.split(REASON)).toHaveLength(2);
  });

  it("drop a stored flag that repeats the reason (records kept before findings were apart)", async () => {
    const record = await registered({
      tool: "exec",
      args: { command: "make" },
      risk: "exec",
      flags: [REASON],
    });
    const facts = Object.fromEntries(requestFacts(record));
    expect(facts.Flags).toBeUndefined();
    expect(facts.Effect).toBe("Runs a command.");
  });

  it("name the host a network call sends data to", async () => {
    const record = await registered({
      tool: "web_fetch",
      args: { url: "https://example.com/x" },
      risk: "read_only",
      flags: [],
    });
    expect(Object.fromEntries(requestFacts(record)).Effect).toBe("Sends data to example.com.");
  });
});
