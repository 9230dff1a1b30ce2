import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GateContext } from "../../src/gate/index.js";
import { testPayload, testRunDeps } from "../helpers/agent-harness.js";
import {
  type FakeChatServer,
  type FakeReply,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Smart approval as the worker wires it (buildRunDeps → smartApproverFromModel → the OpenAI client),
 * answered by a real local chat-completions server: each answer with its step-10 outcome.
 */

const redis = testRedisClient();
let server: FakeChatServer;
beforeAll(async () => {
  server = await startFakeChatServer();
});
afterAll(async () => {
  await server.close();
  redis.disconnect();
});

const QUEUED: GateContext = {
  unattended: false,
  cronAuthorized: false,
  channel: "api",
  userId: "ann",
  agentId: "tester",
  parentExecutionId: null,
  interactive: false,
};
const CALL = { tool: "exec", risk: "exec" as const, args: { command: "make deploy" }, argsHash: "h-deploy" };

async function gate() {
  const { deps } = await testRunDeps({
    redis,
    keyPrefix: uniquePrefix("smart"),
    tools: [],
    script: "- content: unused\n",
    env: { JUDGE_KEY: "sk-test-000000" },
    configOverrides: {
      models: {
        scripted: { provider: "scripted", script: "script.yaml" },
        judge: {
          provider: "openai",
          base_url: server.baseUrl,
          model: "judge-1",
          api_key_env: "JUDGE_KEY",
          timeout_seconds: 1,
        },
      },
      permissions: { approval: { mode: "smart", smart_model: "judge" }, elevated: { enabled: false } },
    },
  });
  return deps.gateFor(testPayload());
}

describe("smart approval through a local model server", () => {
  it.each<[string, FakeReply, { verdict: string; step: number }]>([
    ["APPROVE allows at step 10", reply.content("APPROVE"), { verdict: "allow", step: 10 }],
    ["DENY denies at step 10", reply.content("DENY"), { verdict: "deny", step: 10 }],
    [
      "ESCALATE passes on to a person (step 11 asks)",
      reply.content("ESCALATE"),
      { verdict: "ask", step: 11 },
    ],
    [
      "an unparseable answer passes on to a person",
      reply.content("Looks fine to me, go ahead"),
      { verdict: "ask", step: 11 },
    ],
    ["a timeout passes on to a person", { kind: "hang" }, { verdict: "ask", step: 11 }],
    ["a server error passes on to a person", reply.error(500, "overloaded"), { verdict: "ask", step: 11 }],
  ])("%s", async (_name, answer, expected) => {
    server.enqueue(answer);
    const before = server.requests.length;
    const decision = await (await gate()).check(CALL, QUEUED);
    expect(decision).toMatchObject({ ...expected, approvalSource: "auto" });
    // The model was really asked, with the call in the prompt.
    expect(server.requests.length).toBe(before + 1);
    expect(JSON.stringify(server.requests[before]?.body)).toContain("make deploy");
  });

  it("a sub-agent's call the model escalates is denied at step 11 (nobody to ask)", async () => {
    server.enqueue(reply.content("ESCALATE"));
    const decision = await (await gate()).check(CALL, { ...QUEUED, parentExecutionId: "parent" });
    expect(decision).toMatchObject({ verdict: "deny", step: 11 });
  });
});
