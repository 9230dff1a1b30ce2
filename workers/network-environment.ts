import type { EchoRunnerConfig } from "../src/config/index.js";
import type { Logger } from "../src/logging/index.js";
import { probeOutboundNetwork, type TcpProbe } from "../src/platform/index.js";
import type { DeepReadonly } from "../src/shared/index.js";
import type { ToolEnvironment } from "../src/tools/index.js";

/**
 * The worker's tool environment from the real environment (seed 003 `isEnabled`): outbound network
 * is probed (`execution.network_probe`, or a configured proxy) instead of assumed. With
 * network_policy deny nothing is probed: the policy removes the network tools anyway.
 */
export async function toolEnvironmentFromProbe(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  probe?: TcpProbe,
): Promise<ToolEnvironment> {
  if (config.execution.network_policy === "deny") return { networkAvailable: false };
  const result = await probeOutboundNetwork({
    targets: config.execution.network_probe.targets,
    timeoutMs: config.execution.network_probe.timeout_ms,
    env,
    ...(probe ? { probe } : {}),
  });
  if (result.available) logger.info({ network: result.detail }, "outbound network found");
  else logger.warn({ network: result.detail }, "no outbound network: network tools are disabled");
  return { networkAvailable: result.available };
}
