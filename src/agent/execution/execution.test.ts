import { describe, expect, it } from "vitest";
import { runToolBatch } from "./batch.js";
import { TOOL_ERROR_MAX_CHARS, TOOL_RESULT_MAX_CHARS, truncateError, truncateText } from "./result-limits.js";
import { retryDelayMs, shouldRetryTool } from "./retry.js";
import { REDACTED, sanitizeText, sanitizeValue } from "./sanitize.js";

describe("truncation", () => {
  it("keeps short results and cuts long ones to the limit with a marker", () => {
    expect(truncateText("short", TOOL_RESULT_MAX_CHARS)).toEqual({ text: "short", truncated: false });
    const cut = truncateText("x".repeat(20_000), TOOL_RESULT_MAX_CHARS);
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBe(TOOL_RESULT_MAX_CHARS);
    expect(cut.text.endsWith("…(truncated)…")).toBe(true);
  });

  it("keeps only the first line of an error, at most 400 characters", () => {
    expect(truncateError("first line\nstack trace").text).toBe("first line");
    expect(truncateError("e".repeat(1000)).text.length).toBe(TOOL_ERROR_MAX_CHARS);
  });
});

describe("sanitisation", () => {
  it("redacts credential fields at any depth and opaque encrypted fields", () => {
    const out = sanitizeValue({
      headers: { Authorization: "Bearer abc", "Set-Cookie": "sid=1", accept: "json" },
      nested: [{ password: "p", x_api: "ok", encrypted_content: "zzz" }],
    }) as { headers: Record<string, string>; nested: Record<string, string>[] };
    expect(out.headers.Authorization).toBe(REDACTED);
    expect(out.headers["Set-Cookie"]).toBe(REDACTED);
    expect(out.headers.accept).toBe("json");
    expect(out.nested[0]?.password).toBe(REDACTED);
    expect(out.nested[0]?.x_api).toBe("ok");
    expect(out.nested[0]?.encrypted_content).toBe("[opaque]");
  });

  it("masks header lines and injected secret values inside text", () => {
    const text =
      "HTTP/1.1 200\nAuthorization: Bearer sk-live-123456\nX-Api-Key: k\nbody uses sk-live-123456 again";
    const out = sanitizeText(text, ["sk-live-123456"]);
    expect(out).not.toContain("sk-live-123456");
    expect(out).toContain(`Authorization: ${REDACTED}`);
    expect(out).toContain(`X-Api-Key: ${REDACTED}`);
    expect(out).toContain("HTTP/1.1 200");
  });
});

describe("tool batches", () => {
  it("runs in parallel only when every call is concurrency-safe, and returns results in call order", async () => {
    const started: number[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const parallel = runToolBatch(
      [1, 2, 3],
      () => true,
      async (call) => {
        started.push(call);
        if (started.length === 3) release();
        await gate;
        return call * 10;
      },
    );
    expect(await parallel).toEqual({ results: [10, 20, 30], mode: "parallel" });

    const order: string[] = [];
    const sequential = await runToolBatch(
      ["a", "b", "c"],
      (c) => c !== "b",
      async (call) => {
        order.push(`start ${call}`);
        await Promise.resolve();
        order.push(`end ${call}`);
        return call;
      },
    );
    expect(sequential.mode).toBe("sequential");
    expect(order).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});

describe("retries", () => {
  it.each([
    ["timeout", true, 1, 2, true],
    ["timeout", false, 1, 2, false],
    ["internal", true, 1, 2, true],
    ["internal", true, 3, 2, false],
    ["business", true, 1, 5, false],
    ["validation", true, 1, 5, false],
    ["denied", true, 1, 5, false],
    ["in_doubt", true, 1, 5, false],
  ] as const)(
    "%s failure, safe to repeat %s, attempt %i of max %i retries → retry %s",
    (kind, safe, attempt, max, expected) => {
      expect(shouldRetryTool(kind, { attempt, maxRetries: max, safeToRepeat: safe })).toBe(expected);
    },
  );

  it("backs off exponentially with a cap", () => {
    expect([1, 2, 3].map(retryDelayMs)).toEqual([200, 400, 800]);
    expect(retryDelayMs(30)).toBe(10_000);
  });
});
