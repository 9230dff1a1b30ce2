import { randomBytes } from "node:crypto";
import type { IdGenerator } from "@opentelemetry/sdk-trace-base";
import { sha256Hex } from "../shared/index.js";

/**
 * The span id of a run's `invoke_agent` span: derived from the run id, so the attempts of a run
 * (on any worker, before and after a park) and its sub-agents' runs name it as their parent
 * without storing anything.
 */
export function runSpanId(runId: string): string {
  return sha256Hex(`run:${runId}`).slice(0, 16);
}

/**
 * Random ids, except for the one span started inside {@link ScriptedIds.with}: the SDK asks its id
 * generator synchronously inside `startSpan`, so the run span gets its derived ids (and a root run's
 * span the run tree's trace id) without a second tracer.
 */
export class ScriptedIds implements IdGenerator {
  #next: { traceId: string; spanId: string } | undefined;

  /** Calls `start` (which starts one span) with these ids handed out. */
  with<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
    this.#next = ids;
    try {
      return start();
    } finally {
      this.#next = undefined;
    }
  }

  generateTraceId(): string {
    return this.#next?.traceId ?? randomBytes(16).toString("hex");
  }

  generateSpanId(): string {
    return this.#next?.spanId ?? randomBytes(8).toString("hex");
  }
}
