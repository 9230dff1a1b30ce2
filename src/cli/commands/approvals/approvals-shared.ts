import { type ApprovalRecord, ApprovalStore, formatTime } from "../../../approvals/index.js";
import type { EchoRunnerConfig } from "../../../config/index.js";
import { approvalPolicyFromConfig } from "../../../runtime/index.js";
import { type DeepReadonly, makeVisible, RunnerError } from "../../../shared/index.js";
import type { CliIo } from "../../io.js";
import { connectCliRedis } from "../shared/index.js";

/** An open approval store for one CLI command; `close()` disconnects. */
export interface CliApprovals {
  store: ApprovalStore;
  config: DeepReadonly<EchoRunnerConfig>;
  close(): Promise<void>;
}

/** Loads the config and connects to Redis (REDIS_URL wins over `redis.url`). */
export async function openApprovals(io: CliIo, configPath: string | undefined): Promise<CliApprovals> {
  const { loaded, redis, close } = await connectCliRedis(io, configPath);
  const { config } = loaded;
  const store = new ApprovalStore({
    redis,
    keyPrefix: config.redis.key_prefix,
    policy: approvalPolicyFromConfig(config),
  });
  return {
    store,
    config,
    close,
  };
}

/** One line per request for `approvals list`. */
export function summaryLine(record: ApprovalRecord): string {
  const decided = record.decisions
    .map((d) => `${d.decision === "deny" ? "denied" : "approved"} by ${d.by}`)
    .join(", ");
  const line = [
    record.id,
    record.status.padEnd(9),
    `${record.tool} (${record.risk})`.padEnd(20),
    `agent ${record.agent}`,
    `run ${record.runId}`,
    `deadline ${formatTime(record.deadline)}`,
    decided,
  ]
    .filter(Boolean)
    .join("  ");
  return makeVisible(line);
}

/** The single positional request id of show / approve / deny. */
export function requestIdArg(positionals: readonly string[], usage: string): string {
  if (positionals.length !== 1 || !positionals[0]) {
    throw new RunnerError("CLI_USAGE", `expected exactly one request id; usage: ${usage}`);
  }
  return positionals[0];
}
