export { createLogger, LOG_FORMATS, LOG_LEVELS, type Logger } from "./logger.js";
