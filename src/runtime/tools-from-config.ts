import { isAbsolute, resolve } from "node:path";
import type { Cluster, Redis } from "ioredis";
import { type EchoRunnerConfig, optionalSecret, resolveSecret } from "../config/index.js";
import { checkUrl, type HostResolver } from "../guard/index.js";
import type { Logger } from "../logging/index.js";
import { isHostAllowed } from "../policy/index.js";
import { assertNever, type Clock, type DeepReadonly } from "../shared/index.js";
import {
  createMessageSender,
  type ExtraToolRuntime,
  type HostPolicy,
  type McpServerSpec,
  type MediaEndpoint,
  type MediaSettings,
  type MessageSender,
  type SessionArchive,
  type WebFetchOptions,
  type WebSearchSettings,
} from "../tools/index.js";
import { smtpServerFromConfig } from "./smtp-from-config.js";

/**
 * Config → the runtime of the web, knowledge, skills, media and messaging tools and the MCP server
 * specs, in one place for `tools list` and the worker (which imports these from here). A key left
 * at its "off" value (provider none, base_url "", dir "") leaves its tool not ready, naming the key.
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
 * The sender of notify and message: email through `smtp` (notify finds the owner's address in
 * `approvers`) when `smtp.host` is set, and the webhooks of `tools.messaging.webhooks`; every
 * recipient must be in `tools.messaging.allowed_recipients` (empty = nobody). No channel: none (the
 * tools are then not ready and say so). A webhook whose `secret_env` is unset is CONFIG_SECRET_MISSING:
 * an unsigned body must never go out where the operator asked for a signed one.
 */
export function messageSenderFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): MessageSender | undefined {
  const { smtp } = config;
  const { messaging } = config.tools;
  const hooks = Object.entries(messaging.webhooks);
  if (smtp.host === "" && hooks.length === 0) return undefined;
  const password = optionalSecret(smtp.password_env, env);
  return createMessageSender({
    ...(smtp.host === ""
      ? {}
      : {
          email: {
            ...smtpServerFromConfig(smtp, password),
            addressBook: Object.fromEntries(
              config.approvers.flatMap((a) => (a.email ? [[a.id, a.email]] : [])),
            ),
          },
        }),
    ...(hooks.length === 0
      ? {}
      : {
          webhook: {
            webhooks: Object.fromEntries(
              hooks.map(([name, hook]) => [
                name,
                {
                  url: hook.url,
                  ...(hook.secret_env
                    ? {
                        secret: resolveSecret(
                          hook.secret_env,
                          env,
                          `tools.messaging.webhooks.${name}.secret_env`,
                        ),
                      }
                    : {}),
                },
              ]),
            ),
            ...(messaging.notify_webhook ? { notifyWebhook: messaging.notify_webhook } : {}),
            fetch,
          },
        }),
    allowedRecipients: [...messaging.allowed_recipients],
  });
}

/** `tools.web.search` with its key read from the environment; undefined for provider none. */
export function webSearchFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): WebSearchSettings | undefined {
  const search = config.tools.web.search;
  if (search.provider === "none") return undefined;
  return {
    provider: search.provider,
    apiKey: optionalSecret(search.api_key_env, env),
    apiKeyEnv: search.api_key_env,
    ...(search.endpoint ? { baseUrl: search.endpoint } : {}),
  };
}

/** `tools.media.vision|image|tts`; an endpoint with `base_url: ""` is left out (its tool says so). */
export function mediaFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
): MediaSettings {
  const endpoint = (key: "vision" | "image" | "tts"): MediaEndpoint | undefined => {
    const e = config.tools.media[key];
    if (e.base_url === "") return undefined;
    return {
      baseUrl: e.base_url,
      model: e.model,
      apiKey: e.api_key_env ? optionalSecret(e.api_key_env, env) : undefined,
      ...(e.api_key_env ? { apiKeyEnv: e.api_key_env } : {}),
    };
  };
  const vision = endpoint("vision");
  const image = endpoint("image");
  const tts = endpoint("tts");
  return { ...(vision ? { vision } : {}), ...(image ? { image } : {}), ...(tts ? { tts } : {}) };
}

/** `tools.skills.dir`, absolute (relative to `baseDir`, the config file's folder); undefined for "". */
export function skillsDirFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  baseDir: string,
): string | undefined {
  const dir = config.tools.skills.dir;
  if (dir === "") return undefined;
  return isAbsolute(dir) ? dir : resolve(baseDir, dir);
}

/** Options of {@link extraToolRuntimeFromConfig}. */
export interface ExtraToolRuntimeFromConfigOptions {
  env: NodeJS.ProcessEnv;
  /** DNS for the SSRF check (platform's systemHostResolver in production). */
  resolver: HostResolver;
  /** Redis for the knowledge base; without it the knowledge tools are not ready. */
  redis?: Redis | Cluster;
  clock: Clock;
  logger?: Pick<Logger, "debug">;
  /** Folder relative config paths (the skills directory) are read from. Default: the process's cwd. */
  baseDir?: string;
  /** Past runs' transcripts for session_search; without it session_search is not ready. */
  sessions?: SessionArchive;
  /** HTTP client of the providers and webhooks (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
}

/** The runtime of createExtraTools from config. */
export function extraToolRuntimeFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  options: ExtraToolRuntimeFromConfigOptions,
): ExtraToolRuntime {
  const sender = messageSenderFromConfig(config, options.env, options.fetch);
  const search = webSearchFromConfig(config, options.env);
  const skillsDir = skillsDirFromConfig(config, options.baseDir ?? process.cwd());
  return {
    web: webFetchOptionsFromConfig(config, options.resolver),
    clock: options.clock,
    media: mediaFromConfig(config, options.env),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(search ? { search } : {}),
    ...(skillsDir ? { skillsDir } : {}),
    ...(options.sessions ? { sessions: options.sessions } : {}),
    ...(options.redis ? { knowledge: { redis: options.redis, keyPrefix: config.redis.key_prefix } } : {}),
    ...(sender ? { sender } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  };
}
