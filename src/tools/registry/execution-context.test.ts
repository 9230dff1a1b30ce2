import { describe, expect, it } from "vitest";
import type { RunControl } from "../../catalog/index.js";
import { isRunnerError } from "../../shared/index.js";
import {
  computeIdempotencyKey,
  contextForExecution,
  createToolExecutionContext,
  type ToolExecutionContextOptions,
} from "./execution-context.js";

const BASE: ToolExecutionContextOptions = {
  executionId: "exec-1",
  traceId: "trace-1",
  sessionKey: "session-1",
  userId: "alice",
  agentId: "triage",
  call: { toolName: "read_file", callIndex: 3, params: { path: "a.txt", limit: 10 } },
  allowedTools: ["read_file", "list_dir"],
  channel: "cron",
  workspace: "/srv/work",
  unattended: true,
};

describe("createToolExecutionContext", () => {
  it("builds all 20 fields of seed 000 (plus the runner's workspace and its fence) with their documented defaults", () => {
    const ctx = createToolExecutionContext({ ...BASE, credentials: { API_KEY: "k" } });
    const keys = [...Reflect.ownKeys(ctx)].sort();
    expect(keys).toEqual(
      [
        "executionId",
        "traceId",
        "sessionKey",
        "memoryScope",
        "userId",
        "agentId",
        "attemptIndex",
        "idempotencyKey",
        "isReplay",
        "parentExecutionId",
        "credentials",
        "approvedActions",
        "approvalSource",
        "allowedTools",
        "channel",
        "chatId",
        "replyToId",
        "unattended",
        "cronAuthorized",
        "inboundEventId",
        "workspace",
        "workspaceOnly",
      ].sort(),
    );
    expect(ctx).toMatchObject({
      memoryScope: "user:alice",
      attemptIndex: 0,
      isReplay: false,
      parentExecutionId: null,
      approvalSource: "auto",
      chatId: "",
      replyToId: "",
      unattended: true,
      cronAuthorized: false,
      inboundEventId: "",
      workspaceOnly: true,
    });
    expect(ctx.credentials.API_KEY).toBe("k");
    expect([...ctx.allowedTools]).toEqual(["read_file", "list_dir"]);
    expect(ctx.approvedActions.size).toBe(0);
  });

  it("deep-freezes the context so no tool can change it", () => {
    const ctx = createToolExecutionContext({ ...BASE, credentials: { API_KEY: "k" } });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx.credentials)).toBe(true);
    expect(() => {
      (ctx as { unattended: boolean }).unattended = false;
    }).toThrow(TypeError);
    expect(() => {
      (ctx.credentials as Record<string, string>).API_KEY = "x";
    }).toThrow(TypeError);
  });

  it("gives the allowed and approved sets no way to be changed", () => {
    const ctx = createToolExecutionContext({ ...BASE, approvedActions: ["exec"] });
    expect("add" in ctx.allowedTools).toBe(false);
    expect((ctx.allowedTools as unknown as { add?: unknown }).add).toBeUndefined();
    expect(ctx.approvedActions.has("exec")).toBe(true);
    expect(Object.isFrozen(ctx.allowedTools)).toBe(true);
  });

  it("does not copy the caller's arrays by reference", () => {
    const allowed = ["read_file"];
    const ctx = createToolExecutionContext({ ...BASE, allowedTools: allowed });
    allowed.push("exec");
    expect(ctx.allowedTools.has("exec")).toBe(false);
  });

  it("keeps credentials out of JSON and logs", () => {
    const ctx = createToolExecutionContext({ ...BASE, credentials: { API_KEY: "secret-value" } });
    expect(JSON.stringify(ctx)).not.toContain("secret-value");
    expect(JSON.stringify(ctx)).toContain('"allowedTools":["read_file","list_dir"]');
  });

  it.each([
    ["executionId", { executionId: "" }],
    ["traceId", { traceId: "" }],
    ["agentId", { agentId: 7 as unknown as string }],
    ["attemptIndex", { attemptIndex: -1 }],
    ["attemptIndex", { attemptIndex: 1.5 }],
    ["callIndex", { call: { toolName: "read_file", callIndex: -2, params: {} } }],
    ["toolName", { call: { toolName: "", callIndex: 0, params: {} } }],
    ["approvalSource", { approvalSource: "robot" as "auto" }],
    ["unattended", { unattended: undefined as unknown as boolean }],
    ["parentExecutionId", { parentExecutionId: "" }],
  ])("rejects an invalid %s with TOOL_CONTEXT_INVALID naming it", (field, patch) => {
    let caught: unknown;
    try {
      createToolExecutionContext({ ...BASE, ...patch });
    } catch (err) {
      caught = err;
    }
    expect(isRunnerError(caught, "TOOL_CONTEXT_INVALID")).toBe(true);
    expect((caught as Error).message).toContain(field);
  });
});

describe("computeIdempotencyKey", () => {
  const key = (patch: Partial<Parameters<typeof computeIdempotencyKey>[0]> = {}) =>
    computeIdempotencyKey({
      traceId: "t",
      toolName: "write_file",
      callIndex: 0,
      params: { a: 1, b: [1, 2] },
      ...patch,
    });

  it("is a SHA-256 hex digest", () => {
    expect(key()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("does not change with the key order of the params, at any depth", () => {
    const one = key({ params: { a: 1, nested: { x: 1, y: 2 } } });
    const two = key({ params: { nested: { y: 2, x: 1 }, a: 1 } });
    expect(one).toBe(two);
  });

  it.each([
    ["trace id", { traceId: "t2" }],
    ["tool name", { toolName: "edit_file" }],
    ["call index", { callIndex: 1 }],
    ["params", { params: { a: 2, b: [1, 2] } }],
    ["array order", { params: { a: 1, b: [2, 1] } }],
  ])("changes when the %s changes", (_what, patch) => {
    expect(key(patch)).not.toBe(key());
  });

  it("cannot be made to collide by moving text between fields", () => {
    expect(key({ traceId: "ab", toolName: "c" })).not.toBe(key({ traceId: "a", toolName: "bc" }));
  });

  it("is what the context factory stores", () => {
    const ctx = createToolExecutionContext(BASE);
    expect(ctx.idempotencyKey).toBe(computeIdempotencyKey({ traceId: "trace-1", ...BASE.call }));
  });
});

describe("contextForExecution", () => {
  /** Everything a context shows, non-enumerable fields and set contents included. */
  function view(ctx: ReturnType<typeof createToolExecutionContext>) {
    return {
      ...ctx,
      approvedActions: [...ctx.approvedActions],
      allowedTools: [...ctx.allowedTools],
      credentials: { ...ctx.credentials },
      runControl: ctx.runControl,
      keys: Reflect.ownKeys(ctx).sort(),
      enumerable: Object.keys(ctx).sort(),
      frozen: Object.isFrozen(ctx),
    };
  }
  const runControl = { startChild: async () => undefined } as unknown as RunControl;
  const cases = [
    {},
    {
      approvalSource: "human" as const,
      approvedActions: ["read_file", "k"],
      attemptIndex: 2,
      isReplay: true,
    },
    { credentials: { API_KEY: "secret" }, runControl },
  ];
  for (const [i, details] of cases.entries()) {
    it(`builds what createToolExecutionContext builds with the same options (case ${i})`, () => {
      const base = createToolExecutionContext(BASE);
      expect(view(contextForExecution(base, details))).toEqual(
        view(createToolExecutionContext({ ...BASE, ...details })),
      );
      // The base is unchanged (it is frozen and shared).
      expect(view(base)).toEqual(view(createToolExecutionContext(BASE)));
    });
  }

  it("refuses what createToolExecutionContext refuses", () => {
    const base = createToolExecutionContext(BASE);
    for (const details of [{ attemptIndex: -1 }, { attemptIndex: 1.5 }, { approvalSource: "robot" }]) {
      let err: unknown;
      try {
        contextForExecution(base, details as never);
      } catch (e) {
        err = e;
      }
      expect(isRunnerError(err) && err.code).toBe("TOOL_CONTEXT_INVALID");
    }
  });
});
