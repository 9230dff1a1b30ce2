import type { ToolEnvironment } from "../catalog/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import { probeOutboundNetwork, type RouteTables, type TcpProbe } from "../platform/index.js";
import type { DeepReadonly } from "../shared/index.js";

/** The probe's I/O, injectable for tests: a TCP connect and the routing-table reader. */
export interface NetworkEnvironmentIo {
  probe?: TcpProbe;
  readRoutes?: () => Promise<RouteTables>;
}

/**
 * The worker's tool environment from the real environment (seed 003 `isEnabled`): outbound network
 * is detected instead of assumed — from the routing table or a configured proxy without sending
 * anything, or by TCP connect to `execution.network_probe.targets` when the operator lists them.
 * With network_policy deny nothing is probed: the policy removes the network tools anyway.
 */
export async function toolEnvironmentFromProbe(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  io: NetworkEnvironmentIo = {},
): Promise<ToolEnvironment> {
  if (config.execution.network_policy === "deny") {
    return { networkAvailable: false, networkUnavailableReason: "execution.network_policy is deny" };
  }
  const result = await probeOutboundNetwork({
    targets: config.execution.network_probe.targets,
    timeoutMs: config.execution.network_probe.timeout_ms,
    env,
    ...(io.probe ? { probe: io.probe } : {}),
    ...(io.readRoutes ? { readRoutes: io.readRoutes } : {}),
  });
  if (result.available) {
    logger.info({ network: result.detail }, "outbound network found");
    return { networkAvailable: true };
  }
  logger.warn({ network: result.detail }, "no outbound network: network tools are disabled");
  return { networkAvailable: false, networkUnavailableReason: result.detail };
}
