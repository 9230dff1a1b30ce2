import { afterAll, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { redisSpillStore } from "../../agent/index.js";
import { callContext } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createReadSpillTool, READ_SPILL_MAX_PAGE } from "./read-spill.js";

const redis = testRedisClient();
const prefix = uniquePrefix("spill");
const store = redisSpillStore(redis, prefix, 60_000);
const tool = createReadSpillTool({ spill: store });
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

async function spilled(text: string) {
  const ctx = callContext(tool, "/tmp");
  const id = await store.put(ctx.executionId, `key-${Math.random()}`, text);
  return { ctx, id };
}

describe("read_spill", () => {
  it("pages through a spilled result and says where to continue", async () => {
    const text = `${"a".repeat(READ_SPILL_MAX_PAGE)}${"b".repeat(3000)}`;
    const { ctx, id } = await spilled(text);
    const first = await invokeTool(tool, { id }, ctx);
    expect(first.success).toBe(true);
    expect(first.output).toBe(
      `${"a".repeat(READ_SPILL_MAX_PAGE)}\n[bytes 0-7000 of 10000; continue with offset 7000]`,
    );
    expect(first.output.length).toBeLessThan(8000);
    const second = await invokeTool(tool, { id, offset: 7000 }, ctx);
    expect(second.output).toBe(`${"b".repeat(3000)}\n[bytes 7000-10000 of 10000; end]`);
    const slice = await invokeTool(tool, { id, offset: 6998, length: 4 }, ctx);
    expect(slice.output.split("\n")[0]).toBe("aabb");
  });

  it("reports an unknown id and an offset past the end as business failures", async () => {
    const { ctx, id } = await spilled("short");
    const unknown = await invokeTool(tool, { id: `${ctx.executionId}/${"0".repeat(24)}` }, ctx);
    expect(unknown).toMatchObject({ success: false, errorKind: "business" });
    const past = await invokeTool(tool, { id, offset: 5 }, ctx);
    expect(!past.success && past.error).toContain("past the end");
  });

  it("denies reading another run's spill", async () => {
    const { id } = await spilled("theirs");
    const other = callContext(tool, "/tmp");
    expect(tool.checkPermissions({ id }, other)).toMatchObject({ behavior: "deny" });
    expect(await invokeTool(tool, { id }, other)).toMatchObject({ success: false, errorKind: "denied" });
  });

  it.each([
    [{}, "id"],
    [{ id: "" }, "id"],
    [{ id: "r/x", offset: -1 }, "offset"],
    [{ id: "r/x", length: READ_SPILL_MAX_PAGE + 1 }, "length"],
  ])("rejects %j naming the field %s", async (args, field) => {
    const result = await invokeTool(tool, args, callContext(tool, "/tmp"));
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    expect(!result.success && result.error).toContain(field);
  });

  it("is read-only and idempotent", () => {
    expect(tool.isReadOnly({ id: "x" })).toBe(true);
    expect(tool.idempotent).toBe(true);
  });
});
