import type { ChatMessage, ModelToolSpec } from "../model/model-client.js";
import type { SpillStore } from "../run/ports.js";
import { planContext, renderContext } from "./fit-context.js";
import { DEFAULT_LIVE_OUTPUT_CHARS, liveCutText, planLiveCuts } from "./live-output.js";
import { calibratedBytesPerToken, messageBytes, toolsBytes } from "./token-estimate.js";

/** A request fitted to the context budget. */
export interface FittedRequest {
  messages: ChatMessage[];
  /** Bytes of the request as sent (journalled to calibrate the next estimates). */
  sentBytes: number;
  estimatedTokens: number;
  pruned: number;
  dropped: number;
}

// The pointer the first truncation level leaves in a cut result: its full text is already spilled.
const SPILL_POINTER = /read it with read_spill \{"id": "([^"]+)"\}\]$/;

/**
 * Fits each request of one run to its context budget (see planContext), spilling the full text of
 * every result it prunes so `read_spill` can still return it. Spill ids are derived from the run and
 * the tool call id, so a replay writes the same ids.
 */
export class ContextWindow {
  readonly #spilled = new Map<string, string>();

  constructor(
    private readonly options: {
      runId: string;
      /** Tokens per request; undefined = no budget (the request is sent whole). */
      budgetTokens: number | undefined;
      spill: SpillStore;
      /** Characters the results of one tool type may take together per turn (default exec 12,000, process 8,000). */
      liveOutputChars?: Readonly<Record<string, number>> | undefined;
    },
  ) {}

  async fit(
    history: readonly ChatMessage[],
    tools: readonly ModelToolSpec[],
    sample: { sentBytes: number; promptTokens: number } | undefined,
  ): Promise<FittedRequest> {
    const tb = toolsBytes(tools);
    // Live output budgets first (they cut within a turn), so a result later pruned points at the
    // full text the cut spilled (ids are cached, so the cut text never replaces it).
    const live = [...history];
    for (const cut of planLiveCuts(history, this.options.liveOutputChars ?? DEFAULT_LIVE_OUTPUT_CHARS)) {
      const original = history[cut.index]!;
      if (original.role !== "tool") continue;
      const id = await this.#spillId(cut.index, original);
      live[cut.index] = { ...original, content: liveCutText(original.content, cut.keepChars, id) };
    }
    const messages: readonly ChatMessage[] = live;
    const { budgetTokens } = this.options;
    if (budgetTokens === undefined) {
      return {
        messages: live,
        sentBytes: sizeOf(messages, tb),
        estimatedTokens: 0,
        pruned: 0,
        dropped: 0,
      };
    }
    const plan = planContext({
      messages,
      budgetTokens,
      toolsBytes: tb,
      bytesPerToken: calibratedBytesPerToken(sample),
    });
    const ids = new Map<number, string>();
    for (const i of plan.pruned) ids.set(i, await this.#spillId(i, messages[i]!));
    const fitted = renderContext(messages, plan, (i) => ids.get(i) ?? "");
    return {
      messages: fitted,
      sentBytes: sizeOf(fitted, tb),
      estimatedTokens: plan.estimatedTokens,
      pruned: plan.pruned.length,
      dropped: plan.dropped.length,
    };
  }

  // Keyed by the message's place in the history (call ids may repeat across turns), which the
  // journal fixes, so a replay spills under the same id.
  async #spillId(index: number, message: ChatMessage): Promise<string> {
    if (message.role !== "tool") return "";
    const existing = SPILL_POINTER.exec(message.content);
    if (existing) return existing[1]!;
    const key = `context:${index}:${message.toolCallId}`;
    const cached = this.#spilled.get(key);
    if (cached) return cached;
    const id = await this.options.spill.put(this.options.runId, key, message.content);
    this.#spilled.set(key, id);
    return id;
  }
}

function sizeOf(messages: readonly ChatMessage[], tools: number): number {
  return messages.reduce((s, m) => s + messageBytes(m), tools);
}
