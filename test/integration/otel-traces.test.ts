import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { Type } from "typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOOP_RUN_TRACER } from "../../src/agent/index.js";
import { defineTool, toolSuccess } from "../../src/catalog/index.js";
import { createLogger } from "../../src/logging/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueue } from "../../src/queue/index.js";
import { approvalsFromConfig, runTracerFromConfig, startWorkerPart } from "../../src/runtime/index.js";
import { otelTraceId } from "../../src/shared/index.js";
import { runSpanId } from "../../src/telemetry/index.js";
import { createSubagentTools, createToolRegistry } from "../../src/tools/index.js";
import { agentQueue, testConfig, testPayload } from "../helpers/agent-harness.js";
import {
  type FakeChatServer,
  type RecordedRequest,
  reply,
  startFakeChatServer,
} from "../helpers/fake-chat-server.js";
import { type LocalHttpServer, startLocalHttpServer } from "../helpers/local-http-server.js";
import { deleteKeysWithPrefix, testRedisClient, testRedisUrl, uniquePrefix } from "../helpers/test-redis.js";

/**
 * Traces through the real worker (startWorkerPart), a real OpenAI-format model server and a real
 * OTLP/HTTP receiver in this process: a run whose exec call parks for approval and is approved sends
 * `invoke_agent`, `chat` and `execute_tool` spans with the GenAI attributes, the attempt after the
 * resume in the same trace as the first; with no endpoint, the worker sends nothing.
 */

const COMMAND = "rm -rf build-output-7f3a";
const TASK = "tidy the workspace, secret task text 4c1d";
const redis = testRedisClient();
const logger = createLogger({ level: "silent", format: "json" });
const prefixes: string[] = [];
let receiver: LocalHttpServer;
let model: FakeChatServer;
const executed: string[] = [];

/** One span as OTLP/JSON carries it, attributes flattened. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code?: number };
  resource: Record<string, unknown>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};

function decoded(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(decoded);
  return undefined;
}

function flat(attributes: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map((a) => [a.key, decoded(a.value)]));
}

/** Every span the receiver got, decoded from the OTLP/JSON export requests. */
function received(): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const hit of receiver.hitsOf("/v1/traces")) {
    const body = JSON.parse(hit.body.toString("utf8"));
    for (const rs of body.resourceSpans ?? []) {
      const resource = flat(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? "",
            name: s.name,
            kind: s.kind,
            attributes: flat(s.attributes),
            events: (s.events ?? []).map((e: { name: string; attributes?: never[] }) => ({
              name: e.name,
              attributes: flat(e.attributes),
            })),
            status: s.status ?? {},
            resource,
          });
        }
      }
    }
  }
  return spans;
}

/**
 * First turn: a read_file call (allowed at once); second: an exec call (asks a person); then a final
 * answer. A parent's task delegates once to a child, which answers at once.
 */
function scriptedModel(request: RecordedRequest) {
  const messages = (request.body as { messages: { role: string; content?: string | null }[] }).messages;
  const task = messages.find((m) => m.role === "user")?.content ?? "";
  if (task === "child: answer") return reply.content("child says hi");
  if (task === "parent: delegate") {
    return messages.some((m) => m.role === "tool")
      ? reply.content("parent done")
      : reply.toolCalls([{ name: "delegate_task", arguments: { task: "child: answer" } }]);
  }
  switch (messages.filter((m) => m.role === "assistant").length) {
    case 0:
      return reply.toolCalls([{ name: "read_file", arguments: { path: "notes.txt" }, id: "call_read_1" }]);
    case 1:
      return reply.toolCalls([{ name: "exec", arguments: { command: COMMAND }, id: "call_exec_1" }]);
    default:
      return reply.content("tidied");
  }
}

async function startWorker(keyPrefix: string, env: NodeJS.ProcessEnv, log = logger) {
  prefixes.push(keyPrefix);
  const dir = await mkdtemp(join(tmpdir(), "echo-otel-"));
  const config = await testConfig(dir, {
    redis: { url: testRedisUrl(), key_prefix: keyPrefix },
    security: { profile: "personal_cli" },
    execution: {
      network_policy: "allow",
      in_doubt_policy: "fail",
      network_probe: { targets: [new URL(testRedisUrl()).host], timeout_ms: 1000 },
    },
    permissions: { elevated: { enabled: false }, approval: { mode: "off", auto_approve: ["delegate_task"] } },
    approvers: [
      { id: "olga", email: "olga@example.test" },
      { id: "ann", email: "ann@example.test" },
    ],
    models: {
      main: { provider: "openai", base_url: model.baseUrl, model: "gpt-test", api_key_env: "MODEL_KEY" },
    },
    logging: { level: "silent", format: "json" },
  });
  const exec = defineTool({
    name: "exec",
    description: "records the command (test tool)",
    parameters: Type.Object({ command: Type.String() }),
    async execute(args) {
      executed.push(args.command);
      return toolSuccess("removed");
    },
  });
  const read = defineTool({
    name: "read_file",
    description: "reads nothing (test tool)",
    parameters: Type.Object({ path: Type.String() }),
    isReadOnly: () => true,
    async execute() {
      return toolSuccess("notes");
    },
  });
  const part = await startWorkerPart(
    {
      config,
      logger: log,
      env: { MODEL_KEY: "sk-test-0000", ...env },
      redis,
      baseDir: dir,
      protectedPaths: [],
    },
    {
      registry: createToolRegistry([exec, read, ...createSubagentTools()]),
      releaseRun: async () => 0,
      close: async () => undefined,
    },
  );
  return { config, part };
}

beforeAll(async () => {
  receiver = await startLocalHttpServer({
    "POST /v1/traces": (_hit, res) =>
      void res.writeHead(200, { "content-type": "application/json" }).end("{}"),
  });
  model = await startFakeChatServer(scriptedModel);
}, 30_000);

afterAll(async () => {
  for (const keyPrefix of prefixes) {
    const queue = openAgentQueue(redis, keyPrefix);
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await deleteKeysWithPrefix(redis, keyPrefix);
  }
  redis.disconnect();
  await receiver?.close();
  await model?.close();
});

/** Runs one agent whose exec call parks; approves it as olga; waits for the run to complete. */
async function runApprovedRun(keyPrefix: string, config: Awaited<ReturnType<typeof startWorker>>["config"]) {
  const queue = agentQueue(redis, keyPrefix);
  const approvals = approvalsFromConfig(config, redis, {}, logger);
  const { store } = approvals;
  try {
    const payload = testPayload(
      { userId: "ann", agentId: "tidier" },
      { model: "main", maxSteps: 4, task: TASK },
    );
    await enqueueAgentRun(queue, payload);
    await expect
      .poll(
        async () => (await store.list({ status: "pending" })).filter((r) => r.runId === payload.runId).length,
        {
          timeout: 20_000,
        },
      )
      .toBe(1);
    const [request] = (await store.list({ status: "pending" })).filter((r) => r.runId === payload.runId);
    const decided = await store.decide({
      id: request!.id,
      actor: { kind: "operator", id: "olga", via: "cli" },
      decision: "approve",
    });
    expect(decided).toMatchObject({ outcome: "decided", final: true });
    await expect
      .poll(async () => (await findRunJob(queue, payload.runId))?.getState(), { timeout: 20_000 })
      .toBe("completed");
    return payload;
  } finally {
    await approvals.close();
    await queue.close();
  }
}

describe("OpenTelemetry traces of runs", () => {
  it("sends invoke_agent, chat and execute_tool spans with the GenAI attributes, the resumed attempt in the same trace", async () => {
    const keyPrefix = uniquePrefix("otel-on").replace(/:/g, "-");
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const { config, part } = await startWorker(
      keyPrefix,
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
        OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k%20123",
        OTEL_SERVICE_NAME: "echo-otel-test",
        OTEL_BSP_SCHEDULE_DELAY: "100",
      },
      createLogger({ level: "info", format: "json", destination: sink }),
    );
    let payload: Awaited<ReturnType<typeof runApprovedRun>>;
    try {
      payload = await runApprovedRun(keyPrefix, config);
      expect(executed).toContain(COMMAND);
    } finally {
      // Graceful stop flushes what is still batched.
      await part.stop();
    }
    const traceId = otelTraceId(payload.traceId);
    // The run's log lines (its worker's child logger) carry the trace id its spans have.
    const runLines = lines.filter(
      (l) => l.executionId === payload.runId && (l.msg === "run parked" || l.msg === "run finished"),
    );
    expect(runLines.map((l) => l.msg)).toEqual(["run parked", "run finished"]);
    for (const line of runLines) expect(line.trace_id).toBe(traceId);
    expect(lines.find((l) => l.msg === "exporting run traces over OTLP")).toMatchObject({
      endpoint: `${receiver.origin}/v1/traces`,
      serviceName: "echo-otel-test",
    });
    expect(JSON.stringify(lines)).not.toContain("k 123");
    const spans = received().filter((s) => s.traceId === traceId);
    const named = (prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

    // The run span: id derived from the run id, a root (a top-level run), the GenAI agent attributes.
    const [run] = named("invoke_agent ");
    expect(named("invoke_agent ")).toHaveLength(1);
    expect(run).toMatchObject({
      name: "invoke_agent tidier",
      spanId: runSpanId(payload.runId),
      parentSpanId: "",
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "tidier",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.conversation.id": payload.runId,
        "echo_runner.run.status": "completed",
      },
      resource: { "service.name": "echo-otel-test" },
    });

    // Two attempts under it: the first parked, the second resumed from the journal.
    const attempts = named("attempt ");
    expect(attempts).toHaveLength(2);
    for (const a of attempts) expect(a.parentSpanId).toBe(run!.spanId);
    const parked = attempts.find((a) => a.attributes["echo_runner.attempt.end"] === "parked")!;
    const resumed = attempts.find((a) => a.attributes["echo_runner.attempt.resumed"] === true)!;
    expect(parked.events.map((e) => e.name)).toContain("echo_runner.run.parked");
    expect(resumed).toMatchObject({ attributes: { "echo_runner.attempt.end": "returned" } });
    expect(resumed.events.map((e) => e.name)).toContain("echo_runner.run.resumed");

    // One chat span per fresh model call (the replayed first step is not asked again), CLIENT kind.
    const chats = named("chat ");
    expect(chats.map((c) => c.name)).toEqual(["chat gpt-test", "chat gpt-test", "chat gpt-test"]);
    expect(
      chats
        .filter((c) => c.parentSpanId === parked.spanId)
        .map((c) => c.attributes["echo_runner.model.step"])
        .sort(),
    ).toEqual([0, 1]);
    expect(
      chats
        .filter((c) => c.parentSpanId === resumed.spanId)
        .map((c) => c.attributes["echo_runner.model.step"]),
    ).toEqual([2]);
    for (const chat of chats) {
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.response.model": "fake-model",
        "gen_ai.agent.name": "tidier",
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 7,
        "server.address": "127.0.0.1",
      });
    }
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toContainEqual(["tool_calls"]);
    expect(chats.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toContainEqual(["stop"]);

    // The read_file call: run in the first attempt, replayed from the journal (not run) in the second.
    const reads = named("execute_tool read_file");
    expect(reads).toHaveLength(2);
    const freshRead = reads.find((t) => t.parentSpanId === parked.spanId)!;
    const replayedRead = reads.find((t) => t.parentSpanId === resumed.spanId)!;
    expect(freshRead.attributes).toMatchObject({
      "gen_ai.tool.call.id": "call_read_1",
      "echo_runner.tool.replayed": false,
      "echo_runner.gate.verdict": "allow",
      "echo_runner.gate.approval_source": "auto",
    });
    expect(replayedRead.attributes).toMatchObject({ "echo_runner.tool.replayed": true });
    expect(replayedRead.attributes["echo_runner.gate.verdict"]).toBeUndefined();
    expect(replayedRead.events.map((e) => e.name)).toEqual(["echo_runner.tool.replayed"]);
    expect(replayedRead.attributes["echo_runner.tool.idempotency_key"]).toBe(
      freshRead.attributes["echo_runner.tool.idempotency_key"],
    );

    // The exec call: asked and parked in the first attempt, approved by a person in the second.
    const tools = named("execute_tool exec");
    expect(tools).toHaveLength(2);
    const asked = tools.find((t) => t.parentSpanId === parked.spanId)!;
    const ran = tools.find((t) => t.parentSpanId === resumed.spanId)!;
    for (const t of tools) {
      expect(t.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "exec",
        "gen_ai.tool.call.id": "call_exec_1",
      });
      expect(t.attributes["echo_runner.tool.idempotency_key"]).toMatch(/\S{16,}/);
    }
    expect(asked.attributes["echo_runner.tool.idempotency_key"]).toBe(
      ran.attributes["echo_runner.tool.idempotency_key"],
    );
    expect(asked).toMatchObject({
      attributes: { "echo_runner.gate.verdict": "ask", "echo_runner.tool.parked": true },
    });
    expect(asked.events.map((e) => e.name)).toEqual(["echo_runner.gate.decision", "echo_runner.run.parked"]);
    expect(ran.attributes).toMatchObject({
      "echo_runner.gate.verdict": "allow",
      "echo_runner.gate.step": 11,
      "echo_runner.gate.step_name": "human",
      "echo_runner.gate.approval_source": "human",
      "echo_runner.tool.replayed": false,
    });

    // Every span of the run is in its trace; nothing carries the arguments, the task or a header value.
    expect(received().filter((s) => s.attributes["echo_runner.run.id"] === payload.runId)).toHaveLength(3);
    const bodies = receiver.hitsOf("/v1/traces").map((h) => h.body.toString("utf8"));
    for (const body of bodies) {
      expect(body).not.toContain(COMMAND);
      expect(body).not.toContain("4c1d");
      expect(body).not.toContain("k 123");
    }
    for (const hit of receiver.hitsOf("/v1/traces")) {
      expect(hit.headers["x-collector-key"]).toBe("k 123");
      expect(hit.headers["content-type"]).toContain("application/json");
    }
  }, 90_000);

  it("puts a sub-agent's run in its parent's trace, under the parent's run span", async () => {
    const keyPrefix = uniquePrefix("otel-child").replace(/:/g, "-");
    const { part } = await startWorker(keyPrefix, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    const queue = agentQueue(redis, keyPrefix);
    const parent = testPayload({ agentId: "boss" }, { model: "main", maxSteps: 4, task: "parent: delegate" });
    try {
      await enqueueAgentRun(queue, parent);
      await expect
        .poll(async () => (await findRunJob(queue, parent.runId))?.getState(), { timeout: 20_000 })
        .toBe("completed");
    } finally {
      await queue.close();
      await part.stop();
    }
    const spans = received().filter((s) => s.traceId === otelTraceId(parent.traceId));
    const runs = spans.filter((s) => s.name.startsWith("invoke_agent "));
    expect(runs).toHaveLength(2);
    const parentRun = runs.find((s) => s.attributes["echo_runner.run.id"] === parent.runId)!;
    const childRun = runs.find((s) => s.attributes["echo_runner.run.parent_id"] === parent.runId)!;
    expect(parentRun).toMatchObject({ spanId: runSpanId(parent.runId), parentSpanId: "" });
    expect(childRun.spanId).toBe(runSpanId(childRun.attributes["echo_runner.run.id"] as string));
    expect(childRun.parentSpanId).toBe(parentRun.spanId);
    const childAttempts = spans.filter(
      (s) =>
        s.name.startsWith("attempt ") &&
        s.attributes["echo_runner.run.id"] === childRun.attributes["echo_runner.run.id"],
    );
    expect(childAttempts.length).toBeGreaterThan(0);
    for (const a of childAttempts) expect(a.parentSpanId).toBe(childRun.spanId);
    expect(spans.filter((s) => s.name === "execute_tool delegate_task").length).toBeGreaterThan(0);
  }, 90_000);

  it("sends what is still batched when the worker stops gracefully", async () => {
    const keyPrefix = uniquePrefix("otel-flush").replace(/:/g, "-");
    // Batches wait ten minutes: only the stop can send them.
    const { config, part } = await startWorker(keyPrefix, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.origin}/v1/traces`,
      OTEL_BSP_SCHEDULE_DELAY: "600000",
    });
    let payload: Awaited<ReturnType<typeof runApprovedRun>>;
    try {
      payload = await runApprovedRun(keyPrefix, config);
      const traceId = otelTraceId(payload.traceId);
      expect(received().filter((s) => s.traceId === traceId)).toEqual([]);
    } finally {
      await part.stop();
    }
    const names = received()
      .filter((s) => s.traceId === otelTraceId(payload.traceId))
      .map((s) => s.name.split(" ")[0]);
    expect(names.filter((n) => n === "invoke_agent")).toHaveLength(1);
    expect(names.filter((n) => n === "attempt")).toHaveLength(2);
    expect(names.filter((n) => n === "chat")).toHaveLength(3);
    expect(names.filter((n) => n === "execute_tool")).toHaveLength(4);
  }, 90_000);

  it("with no endpoint set, builds no exporter and sends nothing", async () => {
    const before = receiver.hits.length;
    const keyPrefix = uniquePrefix("otel-off").replace(/:/g, "-");
    // Everything but the endpoint: headers and a service name alone turn nothing on.
    const env = { OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=k", OTEL_SERVICE_NAME: "echo-otel-off" };
    const { config, part } = await startWorker(keyPrefix, env);
    try {
      expect(await runTracerFromConfig(config, env, logger)).toBe(NOOP_RUN_TRACER);
      await runApprovedRun(keyPrefix, config);
    } finally {
      await part.stop();
    }
    expect(receiver.hits.length - before).toBe(0);
  }, 90_000);
});
