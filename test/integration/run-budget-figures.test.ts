import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/index.js";
import { createLogger } from "../../src/logging/index.js";
import { createMetricsCollector, RunnerMetrics } from "../../src/metrics/index.js";
import { enqueueAgentRun, findRunJob, openAgentQueueEvents } from "../../src/queue/index.js";
import { RunInspector } from "../../src/runs/index.js";
import { ownerNotifierFromConfig } from "../../src/runtime/index.js";
import { startAgentWorker } from "../../src/runtime/parts/agent-worker.js";
import { systemClock } from "../../src/shared/index.js";
import {
  agentQueue,
  countingWriteTool,
  testConfig,
  testPayload,
  testRunDeps,
  writeScript,
} from "../helpers/agent-harness.js";
import { anthropicReply, startFakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { startSmtpCapture } from "../helpers/smtp-capture.js";
import { testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

const redis = testRedisClient();
afterAll(() => redis.disconnect());
const logger = createLogger({ level: "silent", format: "json" });

describe("a run that reaches max_cost_usd on the worker", () => {
  it("ends budget_exhausted, mails its owner, and shows its tokens, cost and time in jobs show/list and /metrics", async () => {
    const keyPrefix = uniquePrefix("budget-figures");
    const counter = join("/tmp", `${keyPrefix.replace(/:/g, "_")}.txt`);
    const server = await startFakeAnthropicServer((request) =>
      anthropicReply.toolUse(
        [
          {
            id: `toolu_${request.index}`,
            name: "write_file",
            input: { path: "a", content: `c${request.index}` },
          },
        ],
        null,
        { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500 },
      ),
    );
    const smtp = await startSmtpCapture();
    const overrides = {
      models: {
        claude: {
          provider: "anthropic",
          base_url: server.baseUrl,
          model: "claude-fake",
          api_key_env: "FAKE_KEY",
          // Per response: 1000 fresh input ($0.003) + 500 cached ($0.00015) + 100 output ($0.0015).
          price: { input: 3, output: 15, cached_input: 0.3 },
        },
      },
      agents: { tester: { model: "claude", task: "loop", workspace: "/tmp", max_cost_usd: 0.02 } },
      approvers: [{ id: "ann", email: "ann@example.com" }],
      smtp: { host: smtp.host, port: smtp.port, secure: false, user: "", from: "runner@example.com" },
    };
    const { deps, dir } = await testRunDeps({
      redis,
      keyPrefix,
      tools: [countingWriteTool(counter)],
      script: writeScript(0),
      env: { FAKE_KEY: "sk-ant-test" },
      configOverrides: overrides,
    });
    const config = await testConfig(dir, {
      redis: { url: "redis://127.0.0.1:6379", key_prefix: keyPrefix },
      ...overrides,
    });
    const metrics = new RunnerMetrics({ redis, keyPrefix, logger });
    const queue = agentQueue(redis, keyPrefix);
    const events = openAgentQueueEvents(redis.duplicate(), keyPrefix, { lastEventId: "0-0" });
    const worker = startAgentWorker({
      connection: redis,
      keyPrefix,
      concurrency: 1,
      deps: { ...deps, notifyOwner: ownerNotifierFromConfig(config, {}, logger) },
      metrics,
    });
    const approvals = new ApprovalStore({
      redis,
      keyPrefix,
      policy: { waitTimeoutMs: 60_000, approvers: [] },
    });
    const inspector = new RunInspector({ redis, keyPrefix, approvals });
    try {
      const payload = testPayload({}, { model: "claude" });
      await enqueueAgentRun(queue, payload);
      const job = await findRunJob(queue, payload.runId);
      const outcome = await job!.waitUntilFinished(events, 20_000);
      // $0.00465 per response: the fifth brings the total to $0.02325 >= $0.02, so no sixth request.
      expect(outcome).toMatchObject({
        status: "budget_exhausted",
        steps: 5,
        budget: { limit: "max_cost_usd" },
      });
      expect(server.requests).toHaveLength(5);

      const mail = await smtp.waitForMail((m) => m.subject?.includes(payload.runId) ?? false, 5_000);
      expect(mail.to).toMatchObject({ text: "ann@example.com" });
      expect(mail.text).toMatch(/max_cost_usd 0\.0200 reached \(used 0\.023\d\)/);

      const detail = await inspector.showRun(payload.runId);
      expect(detail.run?.outcome).toBe("failed");
      expect(detail.run?.outcomeText).toBe("failed: budget_exhausted");
      expect(detail.run?.usage).toMatchObject({ inputTokens: 7500, outputTokens: 500, cachedTokens: 2500 });
      expect(detail.run?.usage?.costUsd).toBeCloseTo(0.02325, 6);
      expect(detail.run?.usage?.activeSeconds).toBeGreaterThan(0);
      const listed = (await inspector.listRuns()).find((r) => r.runId === payload.runId);
      expect(listed?.usage?.costUsd).toBeCloseTo(0.02325, 6);

      const text = await createMetricsCollector({
        redis,
        keyPrefix,
        approvals,
        queues: [queue],
        clock: systemClock,
      }).render();
      expect(text).toContain('echo_runs_total{outcome="budget_exhausted"} 1');
      expect(text).toContain('echo_model_input_tokens_total{agent="tester",model="claude"} 7500');
      expect(text).toContain('echo_model_output_tokens_total{agent="tester",model="claude"} 500');
      expect(text).toMatch(/echo_model_cost_usd_total\{agent="tester",model="claude"\} 0\.0232/);
    } finally {
      await worker.close();
      await events.close();
      await inspector.close();
      await queue.obliterate({ force: true });
      await queue.close();
      await server.close();
      await smtp.close();
    }
  });
});
