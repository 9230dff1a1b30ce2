import { type DestinationStream, type Logger, pino } from "pino";
import pretty from "pino-pretty";

/** Log levels and formats accepted by {@link createLogger} (same literals as the config schema). */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["json", "pretty", "auto"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Keys whose values never reach a log line: credentials, tokens, approval links (a link is a
 * capability: whoever holds it can decide), cookies and API keys. Matched at the top level and one
 * or two levels down.
 */
export const REDACTED_KEYS = [
  "password",
  "pass",
  "secret",
  "token",
  "apiKey",
  "api_key",
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "credentials",
  "approvalLink",
  "link",
] as const;

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const key of REDACTED_KEYS) {
    const ref = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
    const join = (prefix: string) => (ref.startsWith("[") ? `${prefix}${ref}` : `${prefix}.${ref}`);
    paths.push(ref.startsWith("[") ? ref : key, join("*"), join("*.*"));
  }
  return paths;
}

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  level: LogLevel;
  /** auto: pretty when `isTty`, JSON otherwise. */
  format: LogFormat;
  /** Where lines go (tests pass a stream they read); default stdout. */
  destination?: DestinationStream;
  isTty?: boolean;
  /** Fields on every line (e.g. { service: "worker" }). */
  base?: Record<string, unknown>;
}

/** A pino logger with secret redaction; JSON by default, readable in a terminal. */
export function createLogger(options: LoggerOptions): Logger {
  const usePretty = options.format === "pretty" || (options.format === "auto" && options.isTty === true);
  const pinoOptions = {
    level: options.level,
    base: options.base ?? {},
    redact: { paths: redactPaths(), censor: "[redacted]" },
  };
  const destination = options.destination ?? pino.destination({ fd: 1, sync: false });
  if (usePretty) {
    return pino(pinoOptions, pretty({ destination, colorize: options.isTty === true, sync: true }));
  }
  return pino(pinoOptions, destination);
}

export type { Logger };
