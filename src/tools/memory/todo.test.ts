import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import type { ToolExecutionContext } from "../../catalog/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createTodoTool } from "./todo.js";

const redis = testRedisClient();
const keyPrefix = uniquePrefix("todo");
const tool = createTodoTool({ redis, keyPrefix, retentionMs: 60_000, limits: DEFAULT_BUILTIN_LIMITS });
afterAll(async () => {
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

const call = (ctx: ToolExecutionContext, args: Record<string, unknown>) => invokeTool(tool, args, ctx);
const items = [
  { content: "read the issue", status: "done" },
  { content: "write the tool", status: "in_progress" },
  { content: "write the tests", status: "pending" },
];

describe("todo", () => {
  it("writes, reads and updates the run's list", async () => {
    const ctx = callContext(tool, "/tmp");
    expect((await call(ctx, { action: "read" })).output).toBe("The to-do list is empty.");
    expect(await call(ctx, { action: "write", items })).toMatchObject({ success: true });
    expect(await call(ctx, { action: "update", index: 2, status: "done" })).toMatchObject({ success: true });
    const read = await call(ctx, { action: "read" });
    expect(read.output).toBe(
      "1. [x] read the issue\n2. [x] write the tool\n3. [ ] write the tests\n[2 of 3 done]",
    );
  });

  it("keeps one list per run, stored under the run's hash tag with an expiry", async () => {
    const mine = callContext(tool, "/tmp");
    const theirs = callContext(tool, "/tmp");
    await call(mine, { action: "write", items });
    expect((await call(theirs, { action: "read" })).output).toBe("The to-do list is empty.");
    const ttl = await redis.pttl(`${keyPrefix}:{run:${mine.executionId}}:todo`);
    expect(ttl).toBeGreaterThan(50_000);
  });

  it("leaves the same list when a call is repeated (idempotent)", async () => {
    const ctx = callContext(tool, "/tmp");
    await call(ctx, { action: "write", items });
    const once = await call(ctx, { action: "update", index: 3, content: "write more tests" });
    const twice = await call(ctx, { action: "update", index: 3, content: "write more tests" });
    expect(twice).toEqual(once);
    expect(tool.idempotent).toBe(true);
  });

  it("reports an item that does not exist", async () => {
    const ctx = callContext(tool, "/tmp");
    const result = await call(ctx, { action: "update", index: 1, status: "done" });
    expect(result).toMatchObject({ success: false, errorKind: "business" });
  });

  it.each([
    [{}, "action"],
    [{ action: "add" }, "action"],
    [{ action: "write" }, "items"],
    [{ action: "write", items: [{ content: "x", status: "later" }] }, "items.0.status"],
    [{ action: "update", status: "done" }, "index"],
    [{ action: "update", index: 1 }, "status or content"],
    [{ action: "update", index: 0, status: "done" }, "index"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const result = await call(callContext(tool, "/tmp"), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("rejects a list longer than the limit", async () => {
    const small = createTodoTool({
      redis,
      keyPrefix,
      retentionMs: 60_000,
      limits: { ...DEFAULT_BUILTIN_LIMITS, todoMaxItems: 2 },
    });
    const result = await invokeTool(small, { action: "write", items }, callContext(small, "/tmp"));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
  });

  it("is denied to a run whose allowed tools do not include it", async () => {
    const ctx = callContext(tool, "/tmp", { allowedTools: ["read_file"] });
    expect(await call(ctx, { action: "read" })).toMatchObject({ success: false, errorKind: "denied" });
  });

  it("is read-only only for read", () => {
    expect(tool.isReadOnly({ action: "read" })).toBe(true);
    expect(tool.isReadOnly({ action: "write", items: [] })).toBe(false);
    expect(tool.readinessDetail().ready).toBe(true);
  });
});
