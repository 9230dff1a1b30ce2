import type { Cluster, Redis } from "ioredis";
import { Counter, collectDefaultMetrics, Gauge, type Metric, Registry } from "prom-client";
import type { ApprovalStore } from "../approvals/index.js";
import type { AgentQueue } from "../queue/index.js";
import type { Clock } from "../shared/index.js";
import { decodeWaitHistogram, foldApprovalWaits } from "./approval-wait.js";
import {
  APPROVAL_WAIT_BUCKETS,
  COUNTER_FAMILIES,
  COUNTER_FAMILY_NAMES,
  type CounterFamily,
  QUEUE_STATES,
} from "./families.js";
import { MetricsKeys } from "./keys.js";
import { queueDepths } from "./queue-depths.js";

/** Options of {@link createMetricsCollector}. */
export interface MetricsCollectorOptions {
  redis: Redis | Cluster;
  keyPrefix: string;
  approvals: ApprovalStore;
  /** The BullMQ queues whose depths are reported (the agent queue). */
  queues: readonly AgentQueue[];
  clock: Clock;
}

/** Renders `/metrics`. */
export interface MetricsCollector {
  readonly contentType: string;
  /** Reads every series from Redis now and returns the Prometheus text exposition. */
  render(): Promise<string>;
}

const HELP: Record<CounterFamily, string> = {
  runs: "Agent runs that ended for good, by outcome (completed, max_steps, budget_exhausted, truncated, refused, failed)",
  run_parks: "Times a run parked (waiting for a person, a child run or a claim) without holding a worker",
  run_retries: "Run attempts that failed and will be tried again",
  tool_calls: "Gate decisions on tool calls by tool, verdict and deciding step (0 = a policy layer)",
  tool_executions: "Tool executions by tool and outcome (success or the error kind)",
  schedule_ticks:
    "Schedule ticks by result (fired, caught-up, skipped-overlap, queued, released, missed, already, busy, lost, gone)",
  credential_failures:
    "Failed credentials by kind (bearer: API or /metrics token, sign_in: /admin, link: approval-link token, slack_signature: a Slack request not signed or too old)",
  model_input_tokens: "Prompt tokens the model providers reported for finished runs, by agent and model",
  model_output_tokens: "Output tokens the model providers reported for finished runs, by agent and model",
  model_cached_tokens: "Prompt tokens read from the providers' caches for finished runs, by agent and model",
  model_cost_usd: "Cost of finished runs' model calls in USD at the configured price, by agent and model",
  model_active_seconds: "Active time of finished runs (parked time excluded), by agent and model",
  model_retries: "Transient model failures retried inside finished runs, by agent and model",
  processes_reaped:
    "Process groups the runner ended, by reason (run_ended: still running when their run ended or parked; orphan: left by a dead worker)",
  redis_outages:
    "Times a worker's runs waited for a Redis that refused commands, by condition (oom, misconf, loading, readonly, busy, tryagain); counted when Redis took commands again",
  redis_outage_seconds: "Seconds a worker's runs waited for a Redis that refused commands, by condition",
};

/**
 * The read side: on each scrape, counters come from the Redis hashes the worker and scheduler write
 * (see ARCHITECTURE.md), gauges are read live (queue depths, pending approvals), and the approval
 * wait histogram is brought up to date from the decision events first. Process metrics (memory,
 * event loop) describe the serving process only.
 */
export function createMetricsCollector(options: MetricsCollectorOptions): MetricsCollector {
  const { redis, approvals, clock } = options;
  const keys = new MetricsKeys(options.keyPrefix);
  const processRegistry = new Registry();
  collectDefaultMetrics({ register: processRegistry });

  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    async render() {
      const now = clock.now();
      await foldApprovalWaits(redis, keys, approvals);
      const registry = new Registry();

      const hashes = await Promise.all(COUNTER_FAMILY_NAMES.map((f) => redis.hgetall(keys.counter(f))));
      COUNTER_FAMILY_NAMES.forEach((family, i) => {
        const labelNames = COUNTER_FAMILIES[family];
        const counter = new Counter({
          name: `echo_${family}_total`,
          help: HELP[family],
          labelNames: [...labelNames],
          registers: [registry],
        });
        for (const [field, value] of Object.entries(hashes[i] ?? {})) {
          const values = parseLabels(field, labelNames.length);
          if (!values) continue;
          counter.inc(Object.fromEntries(labelNames.map((name, j) => [name, values[j]!])), Number(value));
        }
      });

      const pending = new Gauge({
        name: "echo_approvals_pending",
        help: "Approval requests waiting for a person (parked calls), past-deadline ones excluded",
        registers: [registry],
      });
      pending.set(await redis.zcount(approvals.keys.pending, `(${now}`, "+inf"));

      const depth = new Gauge({
        name: "echo_queue_jobs",
        help: "Jobs per queue and state; parked jobs (waiting for a person or a child) are not counted in delayed",
        labelNames: ["queue", "state"],
        registers: [registry],
      });
      for (const queue of options.queues) {
        const byState = await queueDepths(redis, keys, queue, now);
        for (const state of QUEUE_STATES) depth.set({ queue: queue.name, state }, byState[state]);
      }

      registry.registerMetric(approvalWaitHistogram(await redis.hgetall(keys.approvalWait)));
      return Registry.merge([registry, processRegistry]).metrics();
    },
  };
}

/** The histogram as prom-client's metric shape (its own Histogram only takes observations). */
function approvalWaitHistogram(hash: Record<string, string>): Metric {
  const name = "echo_approval_wait_seconds";
  const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
  for (const series of decodeWaitHistogram(hash)) {
    let cumulative = 0;
    series.buckets.forEach((n, i) => {
      cumulative += n;
      const le = i < APPROVAL_WAIT_BUCKETS.length ? APPROVAL_WAIT_BUCKETS[i]! : "+Inf";
      values.push({ metricName: `${name}_bucket`, labels: { status: series.status, le }, value: cumulative });
    });
    values.push({ metricName: `${name}_sum`, labels: { status: series.status }, value: series.sum });
    values.push({ metricName: `${name}_count`, labels: { status: series.status }, value: series.count });
  }
  const help = "Time from an approval request to its final status (approved, denied, expired, cancelled)";
  return {
    name,
    help,
    type: "histogram",
    get: async () => ({ name, help, type: "histogram", values, aggregator: "sum" }),
  } as unknown as Metric;
}

function parseLabels(field: string, arity: number): string[] | null {
  try {
    const parsed: unknown = JSON.parse(field);
    return Array.isArray(parsed) && parsed.length === arity && parsed.every((p) => typeof p === "string")
      ? parsed
      : null;
  } catch {
    return null;
  }
}
