import { type BudgetExhaustion, RunMeter } from "../budget/index.js";
import { ContextWindow } from "../context/context-window.js";
import {
  type ChatMessage,
  type ModelClient,
  type ModelResponse,
  ModelResponse as ModelResponseSchema,
  type ModelToolSpec,
} from "../model/model-client.js";
import { completeWithRetries } from "../model/model-retry.js";
import type { RunOutcome } from "./run-contract.js";
import type { RunScope } from "./run-scope.js";

/**
 * The run loop's model calls: the budget check before each fresh call, the context budget applied to
 * what is sent, the runner's own retries, and the accounting journalled with each response (usage,
 * cost, active time, retries, bytes sent). One per run attempt; everything it counts it reads from
 * the journal, so a replay or a resumed run counts each response once.
 */
export class ModelTurns {
  readonly #scope: RunScope;
  readonly #meter: RunMeter;
  readonly #context: ContextWindow;
  #sample: { sentBytes: number; promptTokens: number } | undefined;

  constructor(scope: RunScope) {
    this.#scope = scope;
    const { payload, deps, recorded } = scope;
    const limits = deps.budgetFor?.(payload) ?? { budget: {}, contextBudget: undefined };
    this.#meter = RunMeter.start({
      payload,
      journal: deps.journal,
      clock: deps.clock,
      budget: limits.budget,
      price: deps.priceOf?.(payload.agent.model),
      index: deps.usageIndex,
      recorded,
    });
    this.#context = new ContextWindow({
      runId: payload.runId,
      budgetTokens: limits.contextBudget,
      spill: deps.spill,
      liveOutputChars: limits.liveOutputChars,
    });
    // The latest journalled request with both its size and the provider's count calibrates the estimate.
    const steps = [...recorded.keys()]
      .filter((k) => k.startsWith("model:"))
      .map((k) => Number(k.slice(6)))
      .sort((a, b) => a - b);
    for (const step of steps) {
      const parsed = ModelResponseSchema.safeParse(recorded.get(`model:${step}`));
      if (parsed.success) this.#learn(parsed.data);
    }
  }

  /**
   * Before a fresh model call: the outcome to stop with when the run tree has reached a budget (its
   * owner is told), or undefined to go on.
   */
  async budgetStop(step: number, toolCalls: number): Promise<RunOutcome | undefined> {
    const reached = await this.#meter.exhausted();
    if (!reached) return undefined;
    const outcome: RunOutcome = {
      status: "budget_exhausted",
      finalAnswer: `stopped before model call ${step + 1}: ${describe(reached)}`,
      steps: step,
      toolCalls,
      usage: this.usage(),
      budget: { limit: reached.limit, allowed: reached.allowed, used: reached.used },
    };
    const { deps, payload } = this.#scope;
    deps.logger.warn(
      { limit: reached.limit, allowed: reached.allowed, used: reached.used },
      "run budget exhausted",
    );
    await deps
      .notifyOwner?.(payload, {
        subject: `echo-runner: run ${payload.runId} of agent ${payload.agentId} stopped at its budget`,
        text: [
          `The run ${payload.runId} (agent ${payload.agentId}${payload.origin.scheduleId ? `, schedule ${payload.origin.scheduleId}` : ""}) stopped before its next model call.`,
          describe(reached),
          `Used by this run: ${summary(this.usage())}.`,
          `Details: echo-runner jobs show ${payload.runId}`,
        ].join("\n"),
      })
      .catch((err: unknown) => deps.logger.warn({ err: String(err) }, "notifying the run's owner failed"));
    return outcome;
  }

  /** The fresh model call of a step: fitted to the context budget, retried, stamped for the journal. */
  async call(
    model: ModelClient,
    messages: readonly ChatMessage[],
    tools: readonly ModelToolSpec[],
  ): Promise<ModelResponse> {
    const { deps } = this.#scope;
    const fitted = await this.#context.fit(messages, tools, this.#sample);
    if (fitted.pruned > 0 || fitted.dropped > 0) {
      deps.logger.debug(
        { pruned: fitted.pruned, dropped: fitted.dropped, estimatedTokens: fitted.estimatedTokens },
        "history fitted to the context budget",
      );
    }
    const { retries, ...response } = await completeWithRetries(
      model,
      { messages: fitted.messages, tools },
      {
        ...(deps.modelRetry ? { policy: deps.modelRetry } : {}),
        onRetry: (r) =>
          deps.logger.warn(
            { code: r.code, attempt: r.attempt, waitMs: r.waitMs, err: r.message },
            "model call retried",
          ),
      },
    );
    return { ...this.#meter.stamp(response, retries), sentBytes: fitted.sentBytes };
  }

  /** Counts the step's journalled response (a replayed one was counted from the journal at start). */
  recorded(response: ModelResponse, replay: boolean): void {
    this.#meter.recorded(response, replay);
    if (!replay) this.#learn(response);
  }

  /** What this run consumed so far, for its outcome. */
  usage(): NonNullable<RunOutcome["usage"]> {
    const own = this.#meter.own;
    return {
      inputTokens: own.inputTokens,
      outputTokens: own.outputTokens,
      cachedTokens: own.cachedTokens,
      costUsd: own.costUsd,
      activeSeconds: Math.round(own.activeMs) / 1000,
      retries: own.retries,
    };
  }

  /** Calibrates the token estimate from a (parsed) response that has both its size and the provider's count. */
  #learn(response: ModelResponse): void {
    const { sentBytes, usage } = response;
    if (sentBytes !== undefined && usage && usage.promptTokens > 0) {
      this.#sample = { sentBytes, promptTokens: usage.promptTokens };
    }
  }
}

function describe(reached: BudgetExhaustion): string {
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(4));
  return `${reached.limit} ${fmt(reached.allowed)} reached (used ${fmt(reached.used)})`;
}

function summary(u: NonNullable<RunOutcome["usage"]>): string {
  return `${u.inputTokens} input tokens, ${u.outputTokens} output tokens, $${u.costUsd.toFixed(4)}, ${u.activeSeconds} s active`;
}
