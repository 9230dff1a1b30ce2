import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import {
  type ApprovalPort,
  auditTrailSink,
  type CallGuard,
  createOpenAiClient,
  loadScriptedModel,
  type ModelClient,
  queueChildren,
  type RunDeps,
  redisSpillStore,
  smartApproverFromModel,
} from "../src/agent/index.js";
import {
  type EchoRunnerConfig,
  effectiveSessionMode,
  gateConfigFromConfig,
  policyInputFromConfig,
  resolveSecret,
} from "../src/config/index.js";
import { ApprovalGate, type GatePorts } from "../src/gate/index.js";
import { AuditTrail, Journal } from "../src/journal/index.js";
import type { Logger } from "../src/logging/index.js";
import { prepareToolPolicy, resolvePreparedToolPolicy } from "../src/policy/index.js";
import { bullPrefix } from "../src/queue/index.js";
import { type Clock, type DeepReadonly, RunnerError, systemClock } from "../src/shared/index.js";
import type { ToolEnvironment, ToolRegistry } from "../src/tools/index.js";
import { sessionArchiveFor } from "./tool-registry.js";

/** Options for {@link buildRunDeps}. */
export interface BuildRunDepsOptions {
  config: DeepReadonly<EchoRunnerConfig>;
  redis: Redis;
  registry: ToolRegistry;
  guard: CallGuard;
  approvals: ApprovalPort;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Directory relative scripted-model paths are read from. */
  baseDir: string;
  gatePorts?: GatePorts;
  /** Grant check of scheduled runs; without a scheduler every scheduled run is unauthorised. */
  cronAuthorized?: RunDeps["cronAuthorized"];
  /** Credentials per tool; none by default. */
  credentials?: RunDeps["credentials"];
  clock?: Clock;
  toolEnvironment?: ToolEnvironment;
  /** Journal claim lease, ms (default 15 s; renewed while a call runs). */
  claimLeaseMs?: number;
  /** A waiting parent re-checks its child this often, ms (default 60 s; a child's end wakes it sooner). */
  childRecheckMs?: number;
}

/** Everything a worker's runs need, from config: journal, audit, policy, gate, models, spill. */
export async function buildRunDeps(options: BuildRunDepsOptions): Promise<RunDeps> {
  const { config, redis } = options;
  const retentionMs = config.retention.journal_days * 24 * 3600 * 1000;
  const keyPrefix = config.redis.key_prefix;
  const journal = new Journal({ redis, keyPrefix, retentionMs });
  const trail = new AuditTrail({ redis, keyPrefix });
  const toolEnvironment = options.toolEnvironment ?? { networkAvailable: true };
  const descriptors = options.registry.describe(toolEnvironment);
  const models = new Map<string, ModelClient>();
  for (const [name, model] of Object.entries(config.models)) {
    if (model.provider === "scripted") {
      models.set(
        name,
        await loadScriptedModel(
          model.script.startsWith("/") ? model.script : `${options.baseDir}/${model.script}`,
        ),
      );
    } else {
      const apiKey = resolveSecret(model.api_key_env, options.env, `model "${name}"`);
      models.set(
        name,
        createOpenAiClient({
          baseUrl: model.base_url,
          model: model.model,
          apiKey,
          ...(model.timeout_seconds ? { timeoutMs: model.timeout_seconds * 1000 } : {}),
        }),
      );
    }
  }
  const smartModel = config.permissions.approval.smart_model;
  const smartClient = smartModel ? models.get(smartModel) : undefined;
  const gatePorts: GatePorts = {
    ...options.gatePorts,
    ...(smartClient && !options.gatePorts?.smartApprover
      ? { smartApprover: smartApproverFromModel(smartClient) }
      : {}),
  };
  return {
    journal,
    registry: options.registry,
    toolEnvironment,
    resolvePolicy(payload) {
      const input = policyInputFromConfig(config, {
        tools: descriptors,
        ...(payload.agent.sessionMode ? { sessionMode: payload.agent.sessionMode } : {}),
        jobSubsets: payload.agent.allowedTools ? [{ label: "job", tools: payload.agent.allowedTools }] : [],
      });
      return resolvePreparedToolPolicy(prepareToolPolicy(input));
    },
    gateFor(payload) {
      const sessionMode = effectiveSessionMode(config, payload.agent.sessionMode);
      return new ApprovalGate(gateConfigFromConfig(config, sessionMode), gatePorts);
    },
    model(name) {
      const client = models.get(name);
      if (!client) {
        throw new RunnerError(
          "CONFIG_INVALID",
          `the run names model "${name}", which is not in config models (known: ${[...models.keys()].join(", ") || "none"})`,
        );
      }
      return client;
    },
    guard: options.guard,
    execHost: config.tools.exec.host,
    approvals: options.approvals,
    audit: auditTrailSink(trail),
    spill: redisSpillStore(redis, keyPrefix, retentionMs),
    credentials: options.credentials ?? credentialsFromConfig(config, options.env),
    cronAuthorized: options.cronAuthorized ?? (async () => false),
    inDoubtPolicy: config.execution.in_doubt_policy,
    claimLeaseMs: options.claimLeaseMs ?? 15_000,
    children: queueChildren(
      new Queue("agent", { connection: redis, prefix: bullPrefix(keyPrefix) }),
      config.retention.finished_jobs,
      { redis, recordTtlMs: retentionMs },
    ),
    childLimits: {
      maxDepth: config.execution.max_child_depth,
      maxChildrenPerRun: config.execution.max_children_per_run,
    },
    childRecheckMs: options.childRecheckMs ?? 60_000,
    clock: options.clock ?? systemClock,
    logger: options.logger,
    sessions: sessionArchiveFor(config, redis),
  };
}

/**
 * Credentials per tool from `tools.credentials` (tool → name → environment variable), read from the
 * environment at execution time. An unset variable is left out (the tool reports it is missing);
 * values never enter the journal, the audit trail, logs or job data.
 */
function credentialsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): RunDeps["credentials"] {
  return (tool) => {
    const wanted = config.tools.credentials[tool];
    if (!wanted) return {};
    const out: Record<string, string> = {};
    for (const [name, variable] of Object.entries(wanted)) {
      const value = env[variable];
      if (value) out[name] = value;
    }
    return out;
  };
}
