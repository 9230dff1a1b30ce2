import type { Cluster, Redis } from "ioredis";
import {
  ApprovalNotifications,
  type ApprovalPolicy,
  ApprovalStore,
  createNotifiers,
  TerminalNotifier,
} from "../approvals/index.js";
import { type EchoRunnerConfig, optionalSecret } from "../config/index.js";
import { AuditTrail } from "../journal/index.js";
import type { Logger } from "../logging/index.js";
import type { DeepReadonly } from "../shared/index.js";
import { chatNotifiersFromConfig } from "./chat-notifiers-from-config.js";
import { escalationAuditTrail } from "./escalation-audit.js";
import { smtpServerFromConfig } from "./smtp-from-config.js";
import { storyReaderFromConfig } from "./story-from-config.js";

/** The approval policy of config (waits, required approvals, self-approval, reminders, approvers). */
export function approvalPolicyFromConfig(config: DeepReadonly<EchoRunnerConfig>): ApprovalPolicy {
  const approval = config.permissions.approval;
  return {
    waitTimeoutMs: approval.wait_timeout_seconds * 1000,
    waitTimeoutMsByRisk: Object.fromEntries(
      Object.entries(approval.wait_timeout_by_risk).map(([risk, seconds]) => [risk, (seconds ?? 0) * 1000]),
    ),
    waitTimeoutMsByChannel: Object.fromEntries(
      Object.entries(approval.wait_timeout_by_channel).map(([channel, seconds]) => [channel, seconds * 1000]),
    ),
    requiredApprovals: { ...approval.required_approvals },
    forbidSelfApproval: approval.forbid_self_approval,
    reminderBeforeMs: approval.reminder_before_seconds * 1000,
    escalateAfterMs: approval.escalate_after_minutes * 60_000,
    escalateTo: [...approval.escalate_to],
    approvers: config.approvers.map((a) => ({ id: a.id, email: a.email ?? null })),
  };
}

/**
 * The approval store and its notifications (email, or the log when no SMTP host is set). With
 * `sending` (the process that sends: the worker), messages also go to the approvers' chat webhooks,
 * carry the run's story read from the journal when they are sent, and several requests of one run
 * or schedule are digested (`notifications.digest_window_seconds`); `close` releases the reader.
 */
export function approvalsFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: { sending?: boolean } = {},
): { store: ApprovalStore; notifications: ApprovalNotifications; close(): Promise<void> } {
  const store = new ApprovalStore({
    redis,
    keyPrefix: config.redis.key_prefix,
    policy: approvalPolicyFromConfig(config),
  });
  const smtp = config.smtp;
  const password = smtp.user ? optionalSecret(smtp.password_env, env) : undefined;
  const notifiers = smtp.host
    ? createNotifiers({
        smtp: smtpServerFromConfig(smtp, password),
        logger,
      })
    : // No SMTP: the mail goes to the terminal, readable and clickable whatever the log format
      // (logging.level silent keeps it quiet, as it kept the logged mail before).
      [
        new TerminalNotifier(
          config.logging.level === "silent" ? () => undefined : (text) => process.stderr.write(text),
          logger,
        ),
      ];
  const reader = options.sending ? storyReaderFromConfig(config, redis, store) : null;
  const escalateAfterMs = config.permissions.approval.escalate_after_minutes * 60_000;
  const escalation =
    options.sending && escalateAfterMs > 0
      ? {
          afterMs: escalateAfterMs,
          to: config.permissions.approval.escalate_to,
          audit: escalationAuditTrail(new AuditTrail({ redis, keyPrefix: config.redis.key_prefix })),
        }
      : undefined;
  const notifications = new ApprovalNotifications({
    store,
    notifiers: options.sending ? [...notifiers, ...chatNotifiersFromConfig(config, env)] : notifiers,
    publicUrl: config.http.public_url,
    logger,
    ...(escalation ? { escalation } : {}),
    ...(reader
      ? { story: reader.story, digestWindowMs: config.notifications.digest_window_seconds * 1000 }
      : {}),
  });
  return { store, notifications, close: async () => reader?.close() };
}
