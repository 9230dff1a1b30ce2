export {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  REDACTED_KEYS,
} from "./logger.js";
