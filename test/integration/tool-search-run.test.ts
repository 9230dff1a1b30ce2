import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ParkSignal, runAgent } from "../../src/agent/index.js";
import { defineMcpTool, toolSuccess } from "../../src/catalog/index.js";
import { unboundToolSearchTool } from "../../src/tools/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import { type FakeChatServer, reply, startFakeChatServer } from "../helpers/fake-chat-server.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * tool_search in a run (seed 003), with the tools the worker registers (its unbound tool_search) and
 * a real chat-completions server as the model: a deferred tool is not offered until the model
 * searches for it, then it is offered and runs; a tool a layer removed is never found.
 */

const redis = testRedisClient();
let server: FakeChatServer;
const prefixes: string[] = [];
let lookups = 0;

// External tools are deferred by default (seed 003): the model meets them through tool_search.
const lookup = defineMcpTool({
  server: "docs",
  tool: "lookup",
  description: "Looks a term up in the team's docs",
  parameters: Type.Object({ term: Type.String() }),
  declaredRisk: "read_only",
  async execute(args) {
    lookups++;
    return toolSuccess(`docs say ${args.term} is fine`);
  },
});

const secret = defineMcpTool({
  server: "docs",
  tool: "delete_page",
  description: "Deletes a docs page",
  parameters: Type.Object({ page: Type.String() }),
  declaredRisk: "write",
  async execute() {
    return toolSuccess("deleted");
  },
});

beforeAll(async () => {
  server = await startFakeChatServer();
});
afterAll(async () => {
  await server.close();
  for (const prefix of prefixes) await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

/** The tool names the model was offered in request `index`. */
function offered(index: number): string[] {
  const body = server.requests[index]?.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((t) => t.function.name).sort();
}

async function runDeps() {
  const keyPrefix = uniquePrefix("tool-search");
  prefixes.push(keyPrefix);
  const { deps } = await testRunDeps({
    redis,
    keyPrefix,
    tools: [lookup, secret, unboundToolSearchTool()],
    script: "- content: unused\n",
    env: { FAKE_KEY: "sk-test-000000" },
    configOverrides: {
      models: {
        scripted: { provider: "openai", base_url: server.baseUrl, model: "m-1", api_key_env: "FAKE_KEY" },
      },
      tools: { deny: ["mcp__docs__delete_page"], mcp: { servers: { docs: { command: "docs-mcp" } } } },
      permissions: { elevated: { enabled: false } },
    },
  });
  return deps;
}

async function run() {
  const payload = testPayload();
  return runAgent({ payload, jobId: payload.runId, owner: "w1", deps: await runDeps() });
}

describe("tool_search in a run", () => {
  it("loads a deferred tool the model searched for, which then runs; a denied one stays out of reach", async () => {
    const first = server.requests.length;
    server.enqueue(
      reply.toolCalls([{ name: "tool_search", arguments: { query: "docs" } }]),
      reply.toolCalls([{ name: "mcp__docs__lookup", arguments: { term: "tool_search" } }]),
      reply.content("The docs say it is fine."),
    );
    const before = lookups;
    const outcome = await run();
    expect(outcome).toMatchObject({ status: "completed", finalAnswer: "The docs say it is fine." });
    expect(lookups).toBe(before + 1);

    // Not offered before the search; offered after it; the denied tool never.
    expect(offered(first)).toContain("tool_search");
    expect(offered(first)).not.toContain("mcp__docs__lookup");
    expect(offered(first + 1)).toContain("mcp__docs__lookup");
    expect(offered(first + 2)).not.toContain("mcp__docs__delete_page");
    // The search's answer named the deferred tool that survived the layers, not the denied one.
    const second = server.requests[first + 1]?.body as { messages: { role: string; content: string }[] };
    const messages = second.messages;
    const answer = messages.find((m) => m.role === "tool")?.content ?? "";
    expect(answer).toContain("mcp__docs__lookup");
    expect(answer).not.toContain("mcp__docs__delete_page");
  });

  it("a run resumed after its search (from the journal) still offers what the search loaded", async () => {
    // A short claim lease: the failed attempt's claim on its model step lapses soon.
    const deps = { ...(await runDeps()), claimLeaseMs: 200 };
    const payload = testPayload();
    server.enqueue(
      reply.toolCalls([{ name: "tool_search", arguments: { query: "select:mcp__docs__lookup" } }]),
      // The attempt ends here: a key the server refuses is not retried.
      reply.error(401, "invalid api key"),
    );
    await expect(runAgent({ payload, jobId: payload.runId, owner: "w1", deps })).rejects.toMatchObject({
      code: "MODEL_AUTH_FAILED",
    });
    const resumedAt = server.requests.length;
    server.enqueue(reply.content("resumed"));
    // The job's next attempt, as a worker makes it: parked while the failed attempt's claim lives.
    const deadline = Date.now() + 10_000;
    let outcome: Awaited<ReturnType<typeof runAgent>> | undefined;
    while (outcome === undefined) {
      try {
        outcome = await runAgent({ payload, jobId: payload.runId, owner: "w2", deps });
      } catch (err) {
        if (!(err instanceof ParkSignal) || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect(outcome).toMatchObject({ status: "completed", finalAnswer: "resumed" });
    // The search was replayed from the journal (not asked again) and its tools are offered.
    expect(server.requests.length).toBe(resumedAt + 1);
    expect(offered(resumedAt)).toContain("mcp__docs__lookup");
  });
});
