export { boundPublicUrl } from "./bound-public-url.js";
export { ENV_OVERRIDE_PREFIX, envOverrideSource, RESERVED_ENV_NAMES } from "./env-overrides.js";
export { type LoadConfigOptions, type LoadedConfig, loadConfig, validateSources } from "./load.js";
export { type MergedConfig, mergeSources } from "./merge.js";
export { type ConfigProblem, formatProblems } from "./problems.js";
export {
  AgentConfigSchema,
  type AgentEntry,
  CATCH_UP_POLICIES,
  DURABILITY_MODES,
  type EchoRunnerConfig,
  EchoRunnerConfigSchema,
  EXEC_HOSTS,
  type ExecHost,
  IN_DOUBT_POLICIES,
  LOG_FORMATS,
  LOG_LEVELS,
  MODEL_PROVIDERS,
  OVERLAP_POLICIES,
  SECURITY_ORDERED_KEYS,
  UNION_LIST_KEYS,
  WORKSPACE_LAYER_MODES,
} from "./schema.js";
export { collectSecretEnvNames, maskUrlCredentials, optionalSecret, resolveSecret } from "./secrets.js";
export { effectiveValues, maskedConfig, renderEffectiveConfig, type ShownValue } from "./show.js";
export {
  CONFIG_SOURCE_KINDS,
  type ConfigSource,
  type ConfigSourceKind,
  DEFAULT_CONFIG_PATH,
  parseYamlConfig,
  readYamlSource,
} from "./sources.js";
export { webhookTargetProblem } from "./webhook-targets.js";
