import { describe, expect, it } from "vitest";
import { RunnerError } from "../../shared/index.js";
import type { ModelClient, ModelResponse } from "./model-client.js";
import { completeWithRetries } from "./model-retry.js";

const ok: ModelResponse = { message: { content: "hi", toolCalls: [] }, finishReason: "stop", usage: null };

function failing(errors: RunnerError[]): ModelClient & { calls: number } {
  const client = {
    calls: 0,
    async complete() {
      const err = errors[client.calls++];
      if (err) throw err;
      return ok;
    },
  };
  return client;
}

describe("completeWithRetries (the runner's own model retries)", () => {
  it("waits the longer of the backoff and retry-after, and returns the retries with the response", async () => {
    const waits: number[] = [];
    const client = failing([
      new RunnerError("MODEL_RATE_LIMITED", "429", { data: { retryAfterMs: 5000 } }),
      new RunnerError("MODEL_OVERLOADED", "529"),
    ]);
    const response = await completeWithRetries(
      client,
      { messages: [], tools: [] },
      {
        policy: { baseDelayMs: 100 },
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    );
    expect(waits).toEqual([5000, 200]);
    expect(response.retries).toEqual([
      { code: "MODEL_RATE_LIMITED", waitMs: 5000 },
      { code: "MODEL_OVERLOADED", waitMs: 200 },
    ]);
  });

  it("does not retry what is not transient, nor past the attempts, nor a retry-after over the cap", async () => {
    const noSleep = { sleep: async () => undefined };
    const rejected = failing([new RunnerError("MODEL_CONTEXT_TOO_LONG", "too long")]);
    await expect(completeWithRetries(rejected, { messages: [], tools: [] }, noSleep)).rejects.toMatchObject({
      code: "MODEL_CONTEXT_TOO_LONG",
    });
    expect(rejected.calls).toBe(1);
    const down = failing(Array.from({ length: 10 }, () => new RunnerError("MODEL_UNAVAILABLE", "down")));
    await expect(
      completeWithRetries(down, { messages: [], tools: [] }, { ...noSleep, policy: { maxAttempts: 3 } }),
    ).rejects.toMatchObject({ code: "MODEL_UNAVAILABLE" });
    expect(down.calls).toBe(3);
    const slow = failing([new RunnerError("MODEL_RATE_LIMITED", "429", { data: { retryAfterMs: 600_000 } })]);
    await expect(completeWithRetries(slow, { messages: [], tools: [] }, noSleep)).rejects.toMatchObject({
      code: "MODEL_RATE_LIMITED",
    });
    expect(slow.calls).toBe(1);
  });
});
