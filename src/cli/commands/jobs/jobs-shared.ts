import { ApprovalStore, formatTime } from "../../../approvals/index.js";
import { RunInspector, usageText } from "../../../runs/index.js";
import { approvalPolicyFromConfig } from "../../../runtime/index.js";
import type { CliIo } from "../../io.js";
import { connectCliRedis } from "../shared/index.js";

/** A run inspector over the configured Redis for one CLI command; `close()` disconnects. */
export interface CliRuns {
  inspector: RunInspector;
  close(): Promise<void>;
}

/** Loads the config, connects to Redis (REDIS_URL wins) and opens a {@link RunInspector}. */
export async function openRuns(io: CliIo, configPath: string | undefined): Promise<CliRuns> {
  const { loaded, redis, close } = await connectCliRedis(io, configPath);
  const { config } = loaded;
  const approvals = new ApprovalStore({
    redis,
    keyPrefix: config.redis.key_prefix,
    policy: approvalPolicyFromConfig(config),
  });
  const inspector = new RunInspector({ redis, keyPrefix: config.redis.key_prefix, approvals });
  return {
    inspector,
    async close() {
      await inspector.close().catch(() => undefined);
      await close();
    },
  };
}

/** A time for a table cell, or "-" when there is none. */
/** A run's consumption in one line (see usageText). */
export const usageLine = usageText;

export function when(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? "-" : formatTime(ms);
}

/** Text on one line (newlines become spaces), cut to `max` characters. */
export function oneLine(text: string | null | undefined, max: number): string {
  if (!text) return "";
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
