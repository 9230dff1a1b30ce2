import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import {
  deleteKeysWithPrefix,
  testRedisClient,
  testRedisUrl,
  uniquePrefix,
} from "../../../test/helpers/test-redis.js";
import type { ToolExecutionContext } from "../../catalog/index.js";
import { ManualClock } from "../../shared/index.js";
import { DEFAULT_BUILTIN_LIMITS } from "../builtin-runtime.js";
import { callContext } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createMemoryTool } from "./memory.js";

const redis = testRedisClient();
const keyPrefix = uniquePrefix("memory");
const clock = new ManualClock(1_700_000_000_000);
const tool = createMemoryTool({ redis, keyPrefix, limits: DEFAULT_BUILTIN_LIMITS, clock });
afterAll(async () => {
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

let scopes = 0;
const scoped = (scope = `user:ann-${++scopes}`) => callContext(tool, "/tmp", { memoryScope: scope });
const call = (ctx: ToolExecutionContext, args: Record<string, unknown>) => invokeTool(tool, args, ctx);

describe("memory", () => {
  it("writes, reads, lists and deletes memories", async () => {
    const ctx = scoped();
    expect(await call(ctx, { action: "write", key: "prefs/editor", value: "vim" })).toMatchObject({
      success: true,
      output: "Remembered prefs/editor (3 chars)",
    });
    await call(ctx, { action: "write", key: "prefs/shell", value: "zsh\nwith plugins" });
    await call(ctx, { action: "write", key: "birthday", value: "May 4" });
    expect(await call(ctx, { action: "read", key: "prefs/editor" })).toMatchObject({
      output: "vim",
      data: { updatedAt: 1_700_000_000_000 },
    });
    expect((await call(ctx, { action: "list", prefix: "prefs/" })).output).toBe(
      "prefs/editor: vim\nprefs/shell: zsh with plugins",
    );
    expect((await call(ctx, { action: "delete", key: "prefs/editor" })).output).toBe("Forgot prefs/editor");
    expect(await call(ctx, { action: "read", key: "prefs/editor" })).toMatchObject({ errorKind: "business" });
  });

  it("keeps memories per scope: another person's run sees none of them", async () => {
    const ann = scoped("user:ann-private");
    const bob = scoped("user:bob-private");
    await call(ann, { action: "write", key: "secret", value: "ann's" });
    expect(await call(bob, { action: "read", key: "secret" })).toMatchObject({ success: false });
    expect((await call(bob, { action: "list" })).output).toBe("No memories.");
    expect((await call(scoped("user:ann-private"), { action: "read", key: "secret" })).output).toBe("ann's");
  });

  it("cannot be tricked out of its scope's hash tag by braces in the scope", async () => {
    const ctx = scoped("user:{evil}");
    await call(ctx, { action: "write", key: "k", value: "v" });
    expect(await redis.hlen(`${keyPrefix}:memory:{user%3A%7Bevil%7D}`)).toBe(1);
  });

  it("leaves the same state when a write or delete is repeated (idempotent)", async () => {
    const ctx = scoped();
    await call(ctx, { action: "write", key: "k", value: "v" });
    await call(ctx, { action: "write", key: "k", value: "v" });
    expect((await call(ctx, { action: "list" })).output).toBe("k: v");
    await call(ctx, { action: "delete", key: "k" });
    expect(await call(ctx, { action: "delete", key: "k" })).toMatchObject({
      success: true,
      data: { removed: false },
    });
    expect(tool.idempotent).toBe(true);
  });

  it("refuses a new key when the scope is full, but still replaces existing ones", async () => {
    const small = createMemoryTool({
      redis,
      keyPrefix,
      clock,
      limits: { ...DEFAULT_BUILTIN_LIMITS, memoryMaxEntries: 2 },
    });
    const ctx = scoped();
    await invokeTool(small, { action: "write", key: "a", value: "1" }, ctx);
    await invokeTool(small, { action: "write", key: "b", value: "2" }, ctx);
    expect(await invokeTool(small, { action: "write", key: "c", value: "3" }, ctx)).toMatchObject({
      success: false,
      errorKind: "business",
    });
    expect(await invokeTool(small, { action: "write", key: "b", value: "22" }, ctx)).toMatchObject({
      success: true,
    });
  });

  it.each([
    [{ action: "recall" }, "action"],
    [{ action: "read" }, "key"],
    [{ action: "write", key: "k" }, "value"],
    [{ action: "write", key: "../etc", value: "x" }, "key"],
    [{ action: "write", key: "a".repeat(129), value: "x" }, "key"],
    [{ action: "delete" }, "key"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const result = await call(scoped(), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("rejects a value over the size limit naming value", async () => {
    const small = createMemoryTool({
      redis,
      keyPrefix,
      clock,
      limits: { ...DEFAULT_BUILTIN_LIMITS, memoryValueMaxChars: 4 },
    });
    const result = await invokeTool(small, { action: "write", key: "k", value: "12345" }, scoped());
    expect((result as { data: unknown }).data).toEqual({
      fields: [{ field: "value", problem: "must be at most 4 chars" }],
    });
  });

  it("is not ready once its Redis connection is closed", async () => {
    const closed = new Redis(testRedisUrl());
    const dead = createMemoryTool({ redis: closed, keyPrefix, clock, limits: DEFAULT_BUILTIN_LIMITS });
    const ended = once(closed, "end");
    await closed.quit();
    await ended;
    expect(dead.readinessDetail()).toEqual({
      ready: false,
      detail: "the Redis connection that holds memories is closed",
    });
    expect(await invokeTool(dead, { action: "list" }, scoped())).toMatchObject({ errorKind: "not_ready" });
  });

  it("is denied to a run whose allowed tools do not include it", async () => {
    const ctx = callContext(tool, "/tmp", { allowedTools: ["todo"] });
    expect(await call(ctx, { action: "list" })).toMatchObject({ success: false, errorKind: "denied" });
  });

  it.each([
    ["read", true],
    ["list", true],
    ["write", false],
    ["delete", false],
  ] as const)("treats %s as read-only=%s", (action, readOnly) => {
    expect(tool.isReadOnly({ action })).toBe(readOnly);
  });
});
