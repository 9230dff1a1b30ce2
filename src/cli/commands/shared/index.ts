// Helpers several command groups use: the CLI's Redis connection, the operator's identity, option parsers.
export { cliConfigChoice, loadCliConfig, USING_DEMO_CONFIG } from "./cli-config.js";
export { connectCliRedis } from "./cli-redis.js";
export {
  DEMO_CONFIG_PATH,
  dataDirOf,
  demoWorkspace,
  demoWorkspaceSource,
  usesDemoConfig,
} from "./demo-config.js";
export { operatorIdentity } from "./operator-identity.js";
export { parseSince } from "./since-option.js";
export { wholeNumberOption } from "./whole-number-option.js";
