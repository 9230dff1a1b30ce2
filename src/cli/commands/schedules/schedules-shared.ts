import { resolve } from "node:path";
import type { AgentEntry, EchoRunnerConfig, LoadedConfig } from "../../../config/index.js";
import { type AgentSpec, openAgentQueue } from "../../../queue/index.js";
import {
  type ConfigScheduleEntry,
  type HistoryEntry,
  ScheduleService,
  ScheduleStore,
  type ScheduleView,
} from "../../../scheduler/index.js";
import { type DeepReadonly, RunnerError } from "../../../shared/index.js";
import type { CliIo } from "../../io.js";
import { connectCliRedis, operatorIdentity } from "../shared/index.js";

/** An open schedule service for one CLI command; `close()` disconnects. */
export interface CliSchedules {
  service: ScheduleService;
  loaded: LoadedConfig;
  config: DeepReadonly<EchoRunnerConfig>;
  /** Who the history records for operator actions (config `operator`, else $USER). */
  actor(): string;
  close(): Promise<void>;
}

/** Loads the config and connects to Redis (REDIS_URL wins over `redis.url`). */
export async function openSchedules(io: CliIo, configPath: string | undefined): Promise<CliSchedules> {
  const { loaded, redis, close } = await connectCliRedis(io, configPath);
  const { config } = loaded;
  const queue = openAgentQueue(redis, config.redis.key_prefix);
  const store = new ScheduleStore({ redis, keyPrefix: config.redis.key_prefix });
  const service = new ScheduleService({ store, agentQueue: queue });
  return {
    service,
    loaded,
    config,
    actor: () => operatorIdentity(config, io.env),
    async close() {
      await queue.close();
      await close();
    },
  };
}

/**
 * The config's `schedules[i]` as the scheduler's entry: it names an agent of `agents`, whose
 * snake_case spec becomes the run's AgentSpec (`max_steps` defaults to `execution.max_steps`;
 * a relative workspace is resolved against `cwd`). The file recorded with the schedule (and with
 * its `authorized: true` grant) is the config source that set `schedules`. Not validated here:
 * `checkedConfigScheduleEntries` (config-schedules.ts) checks them all.
 */
export function configScheduleEntry(loaded: LoadedConfig, i: number, cwd: string): ConfigScheduleEntry {
  const { config } = loaded;
  const file = loaded.origins.get("schedules")?.[0] ?? "(config)";
  const entry = config.schedules[i]!;
  const agent = config.agents[entry.agent];
  if (!agent) {
    const known = Object.keys(config.agents);
    throw new RunnerError(
      "SCHEDULE_INVALID",
      `agent: no agent "${entry.agent}" in agents (defined: ${known.length > 0 ? known.join(", ") : "none"})`,
      { data: { field: "agent", value: entry.agent } },
    );
  }
  return {
    authorized: entry.authorized === true,
    schedule: {
      v: 1,
      id: entry.id,
      cron: entry.cron,
      timezone: entry.timezone,
      agent: agentSpecOf(agent, config.execution.max_steps, cwd),
      ...(entry.overlap === undefined ? {} : { overlap: entry.overlap }),
      ...(entry.catch_up === undefined ? {} : { catchUp: entry.catch_up }),
      ...(entry.catch_up_max === undefined ? {} : { catchUpMax: entry.catch_up_max }),
      ...(entry.jitter_seconds === undefined ? {} : { jitterSeconds: entry.jitter_seconds }),
      ...(entry.enabled === undefined ? {} : { enabled: entry.enabled }),
      owner: entry.owner,
      source: { kind: "config", file },
    },
  };
}

/** A snake_case agent entry (config `agents.<name>`, an agent file, an inline one) as an AgentSpec. */
export function agentSpecOf(
  agent: DeepReadonly<AgentEntry>,
  defaultMaxSteps: number,
  cwd: string,
): AgentSpec {
  const limits = {
    ...(agent.max_input_tokens === undefined ? {} : { maxInputTokens: agent.max_input_tokens }),
    ...(agent.max_output_tokens === undefined ? {} : { maxOutputTokens: agent.max_output_tokens }),
    ...(agent.max_cost_usd === undefined ? {} : { maxCostUsd: agent.max_cost_usd }),
    ...(agent.max_wall_seconds === undefined ? {} : { maxWallSeconds: agent.max_wall_seconds }),
    ...(agent.context_budget === undefined ? {} : { contextBudget: agent.context_budget }),
    ...(agent.live_output_chars === undefined ? {} : { liveOutputChars: { ...agent.live_output_chars } }),
  };
  return {
    model: agent.model,
    task: agent.task,
    ...(agent.allowed_tools === undefined ? {} : { allowedTools: [...agent.allowed_tools] }),
    maxSteps: agent.max_steps ?? defaultMaxSteps,
    workspace: resolve(cwd, agent.workspace),
    ...(agent.session_mode === undefined ? {} : { sessionMode: agent.session_mode }),
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
  };
}

/** The single positional schedule id. */
export function scheduleIdArg(positionals: readonly string[], usage: string): string {
  if (positionals.length !== 1 || !positionals[0]) {
    throw new RunnerError("CLI_USAGE", `expected exactly one schedule id; usage: ${usage}`);
  }
  return positionals[0];
}

/** Fails with a clear message when the schedule does not exist. */
export function requireView(view: ScheduleView | null, id: string): ScheduleView {
  if (!view)
    throw new RunnerError("SCHEDULE_INVALID", `id: no schedule "${id}"`, {
      data: { field: "id", value: id },
    });
  return view;
}

/** `2025-01-01T14:00:00.000Z (2025-01-01 09:00:00 GMT-5 America/New_York)`. */
export function formatInstant(ms: number, timeZone: string): string {
  const local = new Intl.DateTimeFormat("sv-SE", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  }).format(new Date(ms));
  return `${new Date(ms).toISOString()} (${local.replace("\u2212", "-")} ${timeZone})`;
}

/** One line per schedule for `schedules list`. */
export function summaryLine(view: ScheduleView): string {
  const s = view.schedule;
  const auth = view.authorization;
  return [
    s.id.padEnd(20),
    (s.enabled ? "enabled" : "paused").padEnd(8),
    `${s.cron} (${s.timezone})`.padEnd(34),
    `next ${view.nextTick === null ? "-" : new Date(view.nextTick).toISOString()}`,
    `overlap ${s.overlap}, catch-up ${s.catchUp}`,
    auth.cronAuthorized ? `cron-authorised (${auth.reason})` : `not cron-authorised (${auth.reason})`,
    `source ${s.source.kind}`,
  ].join("  ");
}

/** The detail of one schedule for `schedules show`. */
export function detailText(view: ScheduleView, history: readonly HistoryEntry[]): string {
  const s = view.schedule;
  const lines = [
    `schedule ${s.id} (${s.enabled ? "enabled" : "paused"}, rev ${view.rev})`,
    `  cron        ${s.cron} in ${s.timezone}`,
    `  next        ${view.nextTick === null ? "- (paused)" : formatInstant(view.nextTick, s.timezone)}`,
    `  overlap     ${s.overlap}; catch-up ${s.catchUp}${s.catchUp === "all" ? ` (max ${s.catchUpMax})` : ""}; jitter ${s.jitterSeconds}s`,
    `  owner       ${s.owner}`,
    `  source      ${s.source.kind}${"file" in s.source && s.source.file ? ` ${s.source.file}` : ""}`,
    `  agent       model ${s.agent.model}, max ${s.agent.maxSteps} steps, workspace ${s.agent.workspace}`,
    `  task        ${s.agent.task.split("\n")[0]}`,
    `  spec hash   ${view.specHash}`,
    `  cron auth   ${view.authorization.cronAuthorized ? "yes" : "no"}: ${view.authorization.detail}`,
  ];
  if (view.grant) {
    const g = view.grant;
    lines.push(
      `  grant       ${g.status}, ${g.source === "human" ? `approved by ${g.approver}` : `config ${g.configFile}`}, issued ${new Date(g.issuedAt).toISOString()}${g.endedAt ? `, ${g.status} ${new Date(g.endedAt).toISOString()} by ${g.endedBy}` : ""}`,
    );
  }
  if (history.length > 0) {
    lines.push("  history (newest first):");
    for (const e of history) {
      const parts = [
        new Date(e.at).toISOString(),
        e.kind.padEnd(15),
        e.tick === undefined ? "" : `tick ${new Date(e.tick).toISOString()}`,
        e.runId ? `run ${e.runId}` : "",
        e.actor ? `by ${e.actor}` : "",
        e.note ?? "",
      ];
      lines.push(`    ${parts.filter(Boolean).join("  ")}`);
    }
  }
  return lines.join("\n");
}
