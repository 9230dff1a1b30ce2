import { Redis } from "ioredis";
import { ApprovalStore } from "../../../approvals/index.js";
import type { EchoRunnerConfig } from "../../../config/index.js";
import { approvalPolicyFromConfig } from "../../../runtime/index.js";
import type { DeepReadonly } from "../../../shared/index.js";
import { type DoctorCheck, ok, warn } from "./doctor-check.js";

const NAME = "notifications.targets";

/**
 * Notification targets that keep failing on pending approvals: their approvers
 * see no link, and nothing else says so. Undefined when Redis cannot be read (the redis check
 * reports that).
 */
export async function checkFailingTargets(
  config: DeepReadonly<EchoRunnerConfig>,
  url: string,
  timeoutMs: number,
): Promise<DoctorCheck | undefined> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    enableOfflineQueue: false,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    const store = new ApprovalStore({
      redis,
      keyPrefix: config.redis.key_prefix,
      policy: approvalPolicyFromConfig(config),
    });
    const failing = await store.failingTargets();
    if (failing.length === 0) return ok(NAME, "no notification target keeps failing on a pending approval");
    const shown = failing
      .slice(0, 5)
      .map((t) => `${t.target} (${t.failures} failures in a row, ${t.requests} pending request(s))`)
      .join("; ");
    return warn(
      NAME,
      `notification targets keep failing, so their approvers get no link: ${shown}${failing.length > 5 ? `; and ${failing.length - 5} more` : ""}`,
      "check the webhook URL (its env var) or the mailbox of each target; /admin lists them too",
    );
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}
