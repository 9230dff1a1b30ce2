import type { EchoRunnerConfig } from "../config/index.js";
import type { DeepReadonly } from "../shared/index.js";

/**
 * The SMTP server of `smtp:` as both mail senders take it (approval mail and the message tool),
 * with the password each of them read from `smtp.password_env`.
 */
export function smtpServerFromConfig(
  smtp: DeepReadonly<EchoRunnerConfig["smtp"]>,
  password: string | undefined,
): { host: string; port: number; secure: boolean; user: string; password?: string; from: string } {
  return {
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    user: smtp.user,
    ...(password ? { password } : {}),
    from: smtp.from,
  };
}
