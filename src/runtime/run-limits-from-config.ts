import {
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  type RunBudget,
  type RunLimits,
  stricterBudget,
} from "../agent/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import type { AgentJobPayload } from "../queue/index.js";
import type { DeepReadonly } from "../shared/index.js";

type BudgetKeys = {
  max_input_tokens?: number | undefined;
  max_output_tokens?: number | undefined;
  max_cost_usd?: number | undefined;
  max_wall_seconds?: number | undefined;
  max_daily_cost_usd?: number | undefined;
};

function budgetOf(keys: BudgetKeys | undefined): RunBudget {
  if (!keys) return {};
  return {
    maxInputTokens: keys.max_input_tokens,
    maxOutputTokens: keys.max_output_tokens,
    maxCostUsd: keys.max_cost_usd,
    maxWallSeconds: keys.max_wall_seconds,
    maxDailyCostUsd: keys.max_daily_cost_usd,
  };
}

/**
 * A run's limits from config: the stricter of its agent's and its schedule's budgets (sub-agents
 * carry the agent id and schedule of their top-level run, so they share its budget), and the context
 * budget: the agent's `context_budget`, else the model's `context_window` minus its output limit.
 */
export function runLimitsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  payload: AgentJobPayload,
): RunLimits {
  const schedule = payload.origin.scheduleId
    ? config.schedules.find((s) => s.id === payload.origin.scheduleId)
    : undefined;
  // A scheduled run's agent id is "schedule:<id>"; its agent is the schedule's.
  const agent = config.agents[schedule?.agent ?? payload.agentId];
  // What the run's own agent definition set (an agent file, an inline agent) only tightens.
  const own = payload.agent.limits;
  const budget = stricterBudget(
    stricterBudget(budgetOf(agent), budgetOf(schedule)),
    own
      ? {
          maxInputTokens: own.maxInputTokens,
          maxOutputTokens: own.maxOutputTokens,
          maxCostUsd: own.maxCostUsd,
          maxWallSeconds: own.maxWallSeconds,
        }
      : {},
  );
  const model = config.models[payload.agent.model];
  let contextBudget = own?.contextBudget ?? agent?.context_budget;
  if (contextBudget === undefined && model?.context_window !== undefined) {
    const output = model.max_output_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
    contextBudget = Math.max(1000, model.context_window - output);
  }
  return {
    budget,
    contextBudget,
    ...(own?.liveOutputChars
      ? { liveOutputChars: { ...own.liveOutputChars } }
      : agent?.live_output_chars
        ? { liveOutputChars: { ...agent.live_output_chars } }
        : {}),
  };
}
