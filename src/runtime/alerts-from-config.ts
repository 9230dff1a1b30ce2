import type { Cluster, Redis } from "ioredis";
import { AlertOutbox, AlertReporter, AlertSender } from "../alerts/index.js";
import { ChatWebhookNotifier, EmailNotifier, type SendLeaseStore } from "../approvals/index.js";
import {
  collectSecretEnvNames,
  type EchoRunnerConfig,
  optionalSecret,
  resolveSecret,
  webhookTargetProblem,
} from "../config/index.js";
import type { Logger } from "../logging/index.js";
import { type DeepReadonly, normaliseIdentity, RunnerError } from "../shared/index.js";
import { smtpServerFromConfig } from "./smtp-from-config.js";

/** The outbox of `alerts:` (gather and window from config): where reporters store and senders read. */
export function alertOutboxFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
): AlertOutbox {
  return new AlertOutbox({
    redis,
    keyPrefix: config.redis.key_prefix,
    gatherMs: config.alerts.gather_seconds * 1000,
    windowMs: config.alerts.digest_window_seconds * 1000,
  });
}

/**
 * The reporter of `alerts:`: which kinds, the failure streak that makes a schedule "failing", and
 * every secret the config names (API keys, the SMTP password, webhook URLs) masked in what it stores.
 */
export function alertReporterFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): AlertReporter {
  const secrets = [...collectSecretEnvNames(config)]
    .map((name) => env[name])
    .filter((v): v is string => typeof v === "string" && v.length > 0);
  return new AlertReporter({
    outbox: alertOutboxFromConfig(config, redis),
    kinds: config.alerts.on,
    scheduleFailures: config.alerts.schedule_failures,
    secrets,
    logger,
  });
}

/**
 * The sender of `alerts:` (run by the worker): mail through `smtp.*` with the approval mail's
 * notifier (the log without a host), `alerts.chat_webhooks` with the approvals' chat webhook
 * notifier. A webhook URL is checked as approvers' are (no internal address unless
 * `notifications.allow_internal_webhooks` lists it); an unset variable is CONFIG_SECRET_MISSING.
 */
export function alertSenderFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  leases: SendLeaseStore,
): AlertSender {
  const smtp = config.smtp;
  const password = smtp.user ? optionalSecret(smtp.password_env, env) : undefined;
  const email = smtp.host ? new EmailNotifier(smtpServerFromConfig(smtp, password)) : null;
  const chat = config.alerts.chat_webhooks.map((hook, k) => {
    const path = `alerts.chat_webhooks.${k}.url_env`;
    const url = resolveSecret(hook.url_env, env, path);
    const problem = webhookTargetProblem(url, {
      carriesLinks: false,
      allow: config.notifications.allow_internal_webhooks,
    });
    if (problem) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `${path}: "${hook.url_env}": the webhook URL in this variable ${problem}`,
        {
          data: { path },
        },
      );
    }
    return new ChatWebhookNotifier({
      name: `alert-${hook.format}:${hook.url_env}`,
      format: hook.format,
      url,
      personalFor: null,
      adminUrl: null,
    });
  });
  const entries = config.approvers.map((a) => ({ id: a.id, email: a.email ?? null }));
  const listed = config.alerts.approvers.map((id) => normaliseIdentity(id));
  return new AlertSender({
    outbox: alertOutboxFromConfig(config, redis),
    leases,
    email,
    chat,
    approvers: entries.filter((a) => listed.includes(normaliseIdentity(a.id))),
    owners: { enabled: config.alerts.owner, entries },
    publicUrl: config.http.public_url,
    logger,
  });
}
