import type { Redis } from "ioredis";
import { type EchoRunnerConfig, optionalSecret, resolveSecret } from "../src/config/index.js";
import { checkUrl, type HostResolver } from "../src/guard/index.js";
import type { Logger } from "../src/logging/index.js";
import { isHostAllowed } from "../src/policy/index.js";
import { assertNever, type Clock, type DeepReadonly } from "../src/shared/index.js";
import {
  createMessageSender,
  type ExtraToolRuntime,
  type HostPolicy,
  type McpServerSpec,
  type MessageSender,
  type WebFetchOptions,
} from "../src/tools/index.js";

/**
 * Config → the runtime of the web, knowledge, skills, media and messaging tools and the MCP server
 * specs, in one place for `tools list` and the worker (which imports these from here). Keys that
 * config does not have yet (a search provider, media endpoints, the skills directory) are left
 * unset, so those tools report not ready and name the key they wait for.
 */

/** `execution.network_policy` as web_fetch and the provider calls check it for every host. */
export function hostPolicyFromConfig(config: DeepReadonly<EchoRunnerConfig>): HostPolicy {
  const policy = config.execution.network_policy;
  switch (policy) {
    case "allow":
      return () => undefined;
    case "deny":
      return (host) => `${host} cannot be contacted: execution.network_policy is deny`;
    case "restricted": {
      const allowed = config.execution.allowed_hosts;
      return (host) =>
        isHostAllowed(host, allowed)
          ? undefined
          : `${host} is not in execution.allowed_hosts (execution.network_policy is restricted)`;
    }
    default:
      return assertNever(policy, "network policy");
  }
}

/** web_fetch's ports: the guard's SSRF check over `resolver` (resolved once), and the network policy. */
export function webFetchOptionsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  resolver: HostResolver,
): WebFetchOptions {
  return {
    checkUrl: (url) => checkUrl(url, resolver),
    lookup: (host) => resolver.resolve(host),
    hostPolicy: hostPolicyFromConfig(config),
  };
}

/**
 * `tools.mcp.servers` with secrets resolved: `env_from` (child variable → runner variable) becomes
 * the child's `env`, `token_env` the bearer token. A missing secret is CONFIG_SECRET_MISSING.
 */
export function mcpServersFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): Record<string, McpServerSpec> {
  const specs: Record<string, McpServerSpec> = {};
  for (const [name, server] of Object.entries(config.tools.mcp.servers)) {
    const risk = server.risk ? { risk: server.risk } : {};
    if ("command" in server) {
      const childEnv: Record<string, string> = {};
      for (const [child, parent] of Object.entries(server.env_from ?? {})) {
        childEnv[child] = resolveSecret(parent, env, `tools.mcp.servers.${name}.env_from.${child}`);
      }
      specs[name] = { command: server.command, args: [...(server.args ?? [])], env: childEnv, ...risk };
    } else {
      const token = server.token_env
        ? resolveSecret(server.token_env, env, `tools.mcp.servers.${name}.token_env`)
        : undefined;
      specs[name] = { url: server.url, ...(token ? { token } : {}), ...risk };
    }
  }
  return specs;
}

/**
 * The sender of notify and message: email through `smtp` to the `approvers` address book (only
 * addresses in it may be messaged) when `smtp.host` is set; otherwise none (the tools are then not
 * ready and say so). Webhooks have no config key yet.
 */
export function messageSenderFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): MessageSender | undefined {
  const { smtp } = config;
  if (smtp.host === "") return undefined;
  const password = optionalSecret(smtp.password_env, env);
  return createMessageSender({
    email: {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      user: smtp.user,
      ...(password ? { password } : {}),
      from: smtp.from,
      addressBook: Object.fromEntries(config.approvers.map((a) => [a.id, a.email])),
      allowedRecipients: [],
    },
  });
}

/** Options of {@link extraToolRuntimeFromConfig}. */
export interface ExtraToolRuntimeFromConfigOptions {
  env: NodeJS.ProcessEnv;
  /** DNS for the SSRF check (platform's systemHostResolver in production). */
  resolver: HostResolver;
  /** Redis for the knowledge base; without it the knowledge tools are not ready. */
  redis?: Redis;
  clock: Clock;
  logger?: Pick<Logger, "debug">;
}

/** The runtime of createExtraTools from config. */
export function extraToolRuntimeFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  options: ExtraToolRuntimeFromConfigOptions,
): ExtraToolRuntime {
  const sender = messageSenderFromConfig(config, options.env);
  return {
    web: webFetchOptionsFromConfig(config, options.resolver),
    clock: options.clock,
    ...(options.redis ? { knowledge: { redis: options.redis, keyPrefix: config.redis.key_prefix } } : {}),
    ...(sender ? { sender } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  };
}
