import nodemailer from "nodemailer";
import type { RunDeps } from "../agent/index.js";
import { type EchoRunnerConfig, optionalSecret } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import type { DeepReadonly } from "../shared/index.js";

/**
 * The owner of a run: the author of its schedule (`schedules[].owner`), else the user who started it.
 * Pure over config, so `doctor` and the notice agree.
 */
export function runOwner(
  config: DeepReadonly<EchoRunnerConfig>,
  payload: { userId: string; origin: { scheduleId?: string | undefined } },
): string {
  const schedule = payload.origin.scheduleId
    ? config.schedules.find((s) => s.id === payload.origin.scheduleId)
    : undefined;
  return schedule?.owner ?? payload.userId;
}

/**
 * Tells a run's owner that it stopped at a budget: a mail to the `approvers` entry whose id is the
 * owner (through smtp.*), or a warning in the log when there is no SMTP host or no such entry
 * (`doctor` warns about schedules whose owner has none).
 */
export function ownerNotifierFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): NonNullable<RunDeps["notifyOwner"]> {
  const smtp = config.smtp;
  const password = smtp.user ? optionalSecret(smtp.password_env, env) : undefined;
  const transport = smtp.host
    ? nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.user ? { user: smtp.user, pass: password ?? "" } : undefined,
        connectionTimeout: 15_000,
        greetingTimeout: 15_000,
        socketTimeout: 15_000,
      })
    : undefined;
  return async (payload, notice) => {
    const owner = runOwner(config, payload);
    const entry = config.approvers.find((a) => a.id === owner);
    if (!entry || !transport) {
      logger.warn(
        { runId: payload.runId, owner, subject: notice.subject, text: notice.text },
        entry
          ? "run owner notice (no SMTP host: written to the log)"
          : "run owner notice: the owner has no approvers entry",
      );
      return;
    }
    await transport.sendMail({
      from: smtp.from,
      to: entry.email,
      subject: notice.subject,
      text: notice.text,
      headers: { "Auto-Submitted": "auto-generated", "X-Echo-Runner-Run": payload.runId },
    });
  };
}
