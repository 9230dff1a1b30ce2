import type { Cluster, Redis } from "ioredis";
import {
  type ApprovalPort,
  auditTrailSink,
  type CallGuard,
  createAnthropicClient,
  createOpenAiClient,
  loadScriptedModel,
  type ModelClient,
  type RunDeps,
  redisSpillStore,
  redisUsageIndex,
  smartApproverFromModel,
} from "../agent/index.js";
import type { ToolEnvironment } from "../catalog/index.js";
import { type EchoRunnerConfig, resolveSecret } from "../config/index.js";
import { ApprovalGate, type GatePorts } from "../gate/index.js";
import { AuditTrail, Journal } from "../journal/index.js";
import type { Logger } from "../logging/index.js";
import { prepareToolPolicy, resolvePreparedToolPolicy } from "../policy/index.js";
import { openAgentQueue, queueChildren } from "../queue/index.js";
import { type Clock, type DeepReadonly, RunnerError, systemClock } from "../shared/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { ownerNotifierFromConfig } from "./owner-notifier-from-config.js";
import {
  effectiveSessionMode,
  gateConfigFromConfig,
  policyInputFromConfig,
} from "./policy-inputs-from-config.js";
import { runLimitsFromConfig } from "./run-limits-from-config.js";
import { sessionArchiveFor } from "./tool-set-from-config.js";
import { runTracerFromConfig } from "./tracer-from-config.js";

/** Options for {@link buildRunDeps}. */
export interface BuildRunDepsOptions {
  config: DeepReadonly<EchoRunnerConfig>;
  redis: Redis | Cluster;
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
  /**
   * Whether the process has outbound network (seed 003 isEnabled): the worker probes it
   * (toolEnvironmentFromProbe); there is no default, so nothing assumes a network it has not seen.
   */
  toolEnvironment: ToolEnvironment;
  /** Journal claim lease, ms (default 15 s; renewed while a call runs). */
  claimLeaseMs?: number;
  /** A waiting parent re-checks its child this often, ms (default 60 s; a child's end wakes it sooner). */
  childRecheckMs?: number;
  /** seed 002 `beforeToolBatch`: may veto a whole batch; none by default. */
  beforeToolBatch?: RunDeps["beforeToolBatch"];
  /** Tells a run's owner it stopped at a budget (default: mail to the owner's approvers entry). */
  notifyOwner?: RunDeps["notifyOwner"];
  /** The run loop's retries of transient model failures (default 4 attempts, 1 s doubling). */
  modelRetry?: RunDeps["modelRetry"];
}

/** Everything a worker's runs need, from config: journal, audit, policy, gate, models, spill. */
export async function buildRunDeps(options: BuildRunDepsOptions): Promise<RunDeps> {
  const { config, redis } = options;
  const retentionMs = config.retention.journal_days * 24 * 3600 * 1000;
  const keyPrefix = config.redis.key_prefix;
  const journal = new Journal({ redis, keyPrefix, retentionMs });
  const trail = new AuditTrail({ redis, keyPrefix });
  const toolEnvironment = options.toolEnvironment;
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
    } else if (model.provider === "anthropic") {
      const apiKey = resolveSecret(model.api_key_env, options.env, `model "${name}"`);
      models.set(
        name,
        createAnthropicClient({
          baseUrl: model.base_url,
          model: model.model,
          apiKey,
          ...(model.timeout_seconds ? { timeoutMs: model.timeout_seconds * 1000 } : {}),
          ...(model.max_output_tokens ? { maxTokens: model.max_output_tokens } : {}),
        }),
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
          ...(model.max_output_tokens ? { maxTokens: model.max_output_tokens } : {}),
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
    children: queueChildren(openAgentQueue(redis, keyPrefix), {
      redis,
      recordTtlMs: retentionMs,
    }),
    childLimits: {
      maxDepth: config.execution.max_child_depth,
      maxChildrenPerRun: config.execution.max_children_per_run,
    },
    childRecheckMs: options.childRecheckMs ?? 60_000,
    clock: options.clock ?? systemClock,
    logger: options.logger,
    sessions: sessionArchiveFor(config, redis),
    toolExecution: config.tools.execution,
    ...(options.beforeToolBatch ? { beforeToolBatch: options.beforeToolBatch } : {}),
    budgetFor: (payload) => runLimitsFromConfig(config, payload),
    priceOf(name) {
      const price = config.models[name]?.price;
      return price
        ? { input: price.input, output: price.output, cachedInput: price.cached_input }
        : undefined;
    },
    usageIndex: redisUsageIndex(redis, keyPrefix, retentionMs),
    notifyOwner: options.notifyOwner ?? ownerNotifierFromConfig(config, options.env, options.logger),
    ...(options.modelRetry ? { modelRetry: options.modelRetry } : {}),
    tracer: await runTracerFromConfig(config, options.env, options.logger),
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
