import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ATTENDED,
  openPolicyInput,
  policyThenGate,
  UNATTENDED,
} from "../../../test/helpers/policy-and-gate.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import type { AnyTool } from "../../catalog/index.js";
import { Journal } from "../../journal/index.js";
import { checkToolCall, resolveToolPolicy } from "../../policy/index.js";
import { createToolRegistry } from "../registry/registry.js";
import { type ConnectedMcpServers, connectMcpServers } from "./connect-mcp-servers.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURE = {
  command: process.execPath,
  args: [join(ROOT, "bin/run-ts.js"), join(ROOT, "test/fixtures/mcp/echo-server.ts")],
  cwd: ROOT,
};

let mcp: ConnectedMcpServers;
let notesFile: string;
let redis: Redis;
const prefix = uniquePrefix("mcp");

function tool(name: string): AnyTool {
  const found = mcp.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}; have ${mcp.tools.map((t) => t.name).join(", ")}`);
  return found;
}

beforeAll(async () => {
  notesFile = join(await mkdtemp(join(tmpdir(), "mcp-notes-")), "notes.txt");
  process.env.ECHO_TEST_PARENT_SECRET = "must-not-leak";
  mcp = await connectMcpServers(
    {
      fixture: { ...FIXTURE, env: { NOTES_FILE: notesFile, GIVEN_VAR: "given" } },
      broken: { command: join(ROOT, "test/fixtures/mcp/no-such-server") },
    },
    { connectTimeoutMs: 20_000 },
  );
  redis = testRedisClient();
}, 30_000);

afterAll(async () => {
  delete process.env.ECHO_TEST_PARENT_SECRET;
  await mcp.close();
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

describe("connectMcpServers over stdio", () => {
  it("lists the server's tools as mcp__<server>__<tool> and reports what it could not adopt", () => {
    expect(mcp.tools.map((t) => t.name).sort()).toEqual([
      "mcp__fixture__add_note",
      "mcp__fixture__echo",
      "mcp__fixture__fail",
      "mcp__fixture__show_env",
    ]);
    expect(mcp.absent).toContainEqual(
      expect.objectContaining({
        server: "fixture",
        tool: "bad.name",
        reason: expect.stringContaining("not adopted"),
      }),
    );
    expect(mcp.absent).toContainEqual(
      expect.objectContaining({
        server: "broken",
        reason: expect.stringContaining('MCP server "broken" is not available'),
      }),
    );
  });

  it("takes risk from the read-only hint and otherwise exec, with capability mcp.call and deferred loading", () => {
    const echo = tool("mcp__fixture__echo");
    const note = tool("mcp__fixture__add_note");
    expect([echo.riskLevel, note.riskLevel]).toEqual(["read_only", "exec"]);
    expect(echo.capabilities).toEqual(["mcp.call"]);
    expect(echo.shouldDefer).toBe(true);
    expect(note.isDestructive({ note: "x" })).toBe(true);
    expect(echo.readinessDetail()).toEqual({ ready: true, detail: 'connected to MCP server "fixture"' });
  });

  it("registers with the registry and is present", () => {
    const registry = createToolRegistry(mcp.tools);
    const { present } = registry.present({ networkAvailable: true });
    expect(present.map((t) => t.name)).toContain("mcp__fixture__echo");
  });

  it("calls a tool on the server and returns its text", async () => {
    const result = await callTool(tool("mcp__fixture__echo"), { text: "hello" });
    expect(result).toEqual({ success: true, output: "echo: hello" });
  });

  it("validates arguments against the server's input schema, naming the field", async () => {
    const result = await callTool(tool("mcp__fixture__echo"), {});
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain("text: is required");
  });

  it("reports a tool's isError answer as a business failure with its text", async () => {
    const result = await callTool(tool("mcp__fixture__fail"), {});
    expect(result).toMatchObject({
      success: false,
      errorKind: "business",
      output: "the fixture was asked to fail",
    });
  });

  it("starts the server without the runner's environment, with only the variables configured for it", async () => {
    const result = await callTool(tool("mcp__fixture__show_env"), {
      names: ["ECHO_TEST_PARENT_SECRET", "GIVEN_VAR"],
    });
    expect(result.output).toBe("ECHO_TEST_PARENT_SECRET=(unset)\nGIVEN_VAR=given");
  });

  it("passes policy and the gate like a built-in tool: exec needs a person, read-only does not", async () => {
    const input = openPolicyInput(createToolRegistry(mcp.tools).describe({ networkAvailable: true }));
    const decide = policyThenGate(resolveToolPolicy(input));
    expect((await decide("mcp__fixture__echo", { text: "x" }, UNATTENDED)).verdict).toBe("allow");
    expect((await decide("mcp__fixture__add_note", { note: "x" }, ATTENDED)).verdict).toBe("ask");
    expect((await decide("mcp__fixture__add_note", { note: "x" }, UNATTENDED)).verdict).toBe("deny");
    const minimal = resolveToolPolicy({ ...input, profile: "minimal" });
    expect(checkToolCall(minimal, "mcp__fixture__echo", { text: "x" }).allowed).toBe(false);
  });

  it("replays a journalled call without calling the server again", async () => {
    const journal = new Journal({ redis, keyPrefix: prefix });
    const note = tool("mcp__fixture__add_note");
    const args = { note: "once" };
    const ctx = toolContext(note, args);
    const first = await journalledCall(journal, "run-mcp", note, args, ctx);
    const second = await journalledCall(journal, "run-mcp", note, args, ctx);
    expect(first).toEqual({ result: { success: true, output: "noted once" }, replay: false });
    expect(second).toEqual({ result: first.result, replay: true });
    const lines = (await readFile(notesFile, "utf8")).trim().split("\n");
    expect(lines).toEqual([`${ctx.idempotencyKey} once`]);
  });

  it("makes a server's tools not ready with the reason once it is closed", async () => {
    const own = await connectMcpServers({ again: FIXTURE }, { connectTimeoutMs: 20_000 });
    const echo = own.tools.find((t) => t.name === "mcp__again__echo");
    expect(echo?.isReady()).toBe(true);
    await own.close();
    expect(echo?.readinessDetail()).toEqual({ ready: false, detail: 'MCP server "again" disconnected' });
    const result = await callTool(echo as AnyTool, { text: "late" });
    expect(result).toMatchObject({ success: false, errorKind: "not_ready" });
  }, 30_000);
});
