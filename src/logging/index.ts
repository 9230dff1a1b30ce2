export {
  createLogger,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  REDACTED_KEYS,
} from "./logger.js";
