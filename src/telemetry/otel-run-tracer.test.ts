import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentJobPayload } from "../queue/index.js";
import { otelTraceId, RunnerError } from "../shared/index.js";
import { OtelRunTracer } from "./otel-run-tracer.js";
import { runSpanId, ScriptedIds } from "./span-ids.js";

const exporter = new InMemorySpanExporter();
const ids = new ScriptedIds();
const provider = new BasicTracerProvider({
  idGenerator: ids,
  sampler: new AlwaysOnSampler(),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const tracer = new OtelRunTracer({
  tracer: provider.getTracer("test"),
  ids,
  describeModel: (name) =>
    name === "main"
      ? { provider: "anthropic", model: "claude-test", serverAddress: "api.example.test", serverPort: 443 }
      : undefined,
  shutdown: () => provider.shutdown(),
});

afterEach(() => exporter.reset());

function payload(runId: string, parent: string | null = null): AgentJobPayload {
  return {
    v: 1,
    runId,
    traceId: "tree-1",
    agent: { model: "main", task: "secret task", maxSteps: 5, workspace: "/tmp" },
    origin: { kind: parent ? "parent" : "schedule", ...(parent ? {} : { scheduleId: "nightly" }) },
    sessionKey: "s",
    userId: "ann",
    agentId: parent ? "helper" : "boss",
    channel: "api",
    chatId: "",
    unattended: true,
    parentExecutionId: parent,
    depth: parent ? 1 : 0,
    createdAt: 1_700_000_000_000,
  };
}

const spans = () => exporter.getFinishedSpans();
const byName = (name: string) => spans().find((s) => s.name === name)!;

describe("OtelRunTracer", () => {
  it("puts a sub-agent's run under its parent's run span, in the parent's trace", () => {
    const parent = payload("run-parent");
    const child = payload("run-child", "run-parent");
    tracer
      .attempt(child, { resumed: false, journalled: 0 })
      .end({ kind: "returned", status: "completed", steps: 1, toolCalls: 0 });
    tracer.runEnded(child, { status: "completed" });
    tracer.runEnded(parent, { status: "completed" });
    const trace = otelTraceId("tree-1");
    const root = byName("invoke_agent boss");
    const sub = byName("invoke_agent helper");
    expect(root.spanContext()).toMatchObject({ traceId: trace, spanId: runSpanId("run-parent") });
    expect(root.parentSpanContext).toBeUndefined();
    expect(sub.spanContext()).toMatchObject({ traceId: trace, spanId: runSpanId("run-child") });
    expect(sub.parentSpanContext?.spanId).toBe(runSpanId("run-parent"));
    expect(byName("attempt helper").parentSpanContext?.spanId).toBe(runSpanId("run-child"));
    expect(root.startTime[0]).toBe(1_700_000_000);
    expect(root.attributes).toMatchObject({
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-test",
      "echo_runner.schedule.id": "nightly",
      "echo_runner.run.unattended": true,
    });
  });

  it("ids after the run span are random again", () => {
    tracer.runEnded(payload("run-a"), { status: "completed" });
    const attempt = tracer.attempt(payload("run-a"), { resumed: true, journalled: 2 });
    attempt.end({ kind: "parked", wakeAt: 1_700_000_100_000 });
    const [run, att] = spans();
    expect(att?.spanContext().spanId).not.toBe(run?.spanContext().spanId);
    expect(att?.events.map((e) => e.name)).toEqual(["echo_runner.run.resumed", "echo_runner.run.parked"]);
  });

  it("records a failed model call by its code, a failed run by its code, never a message", () => {
    const run = payload("run-f");
    const attempt = tracer.attempt(run, { resumed: false, journalled: 0 });
    attempt.modelCall(0, "main").fail(new RunnerError("MODEL_AUTH_FAILED", "key sk-abc rejected"));
    attempt.end({ kind: "failed", error: new RunnerError("MODEL_AUTH_FAILED", "key sk-abc rejected") });
    tracer.runEnded(run, { status: "failed", code: "MODEL_AUTH_FAILED" });
    const chat = byName("chat claude-test");
    expect(chat.attributes).toMatchObject({ "error.type": "MODEL_AUTH_FAILED", "server.port": 443 });
    expect(chat.status).toEqual({ code: 2, message: "MODEL_AUTH_FAILED" });
    expect(byName("invoke_agent boss").attributes["error.type"]).toBe("MODEL_AUTH_FAILED");
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.events, s.status]))).not.toContain("sk-abc");
  });

  it("marks a replayed tool call and a denied one", () => {
    const attempt = tracer.attempt(payload("run-t"), { resumed: true, journalled: 3 });
    attempt
      .toolCall({ name: "read_file", callId: "c1", callIndex: 0, idempotencyKey: "k1" })
      .end({ success: true, output: "x" }, true);
    const exec = attempt.toolCall({ name: "exec", callId: "c2", callIndex: 1, idempotencyKey: "k2" });
    attempt.decided("k2", {
      verdict: "deny",
      step: 1,
      stepName: "static_guard",
      reason: "rm -rf /",
      risk: "dangerous",
      flagged: true,
      approvalSource: "auto",
    });
    // A decision for a key with no open call (already ended) changes nothing.
    attempt.decided("k1", {
      verdict: "allow",
      step: 3,
      stepName: "risk",
      reason: "",
      risk: "read_only",
      flagged: false,
      approvalSource: "auto",
    });
    exec.end({ success: false, output: "", error: "denied", errorKind: "denied" }, false);
    attempt.end({ kind: "returned", status: "completed", steps: 2, toolCalls: 2 });
    const replayed = byName("execute_tool read_file");
    expect(replayed.attributes).toMatchObject({
      "echo_runner.tool.replayed": true,
      "gen_ai.tool.call.id": "c1",
    });
    expect(replayed.attributes["echo_runner.gate.verdict"]).toBeUndefined();
    expect(replayed.events.map((e) => e.name)).toEqual(["echo_runner.tool.replayed"]);
    const denied = byName("execute_tool exec");
    expect(denied.attributes).toMatchObject({
      "error.type": "denied",
      "echo_runner.gate.verdict": "deny",
      "echo_runner.gate.step": 1,
      "echo_runner.gate.step_name": "static_guard",
      "echo_runner.gate.flagged": true,
      "echo_runner.tool.replayed": false,
    });
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain("rm -rf");
  });
});
