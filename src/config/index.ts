export { boundPublicUrl } from "./bound-public-url.js";
export { envOverrideSource } from "./env-overrides.js";
export { type LoadConfigOptions, type LoadedConfig, loadConfig, validateSources } from "./load.js";
export { type ConfigProblem, formatProblems } from "./problems.js";
export {
  AgentConfigSchema,
  type AgentEntry,
  type EchoRunnerConfig,
  EXEC_HOSTS,
  IN_DOUBT_POLICIES,
  LOG_FORMATS,
  LOG_LEVELS,
  SECURITY_ORDERED_KEYS,
} from "./schema.js";
export { collectSecretEnvNames, maskUrlCredentials, optionalSecret, resolveSecret } from "./secrets.js";
export { effectiveValues, maskedConfig, renderEffectiveConfig } from "./show.js";
export { type ConfigSource, DEFAULT_CONFIG_PATH, PACKAGE_CONFIG_DIR, parseYamlConfig } from "./sources.js";
export { webhookTargetProblem } from "./webhook-targets.js";
