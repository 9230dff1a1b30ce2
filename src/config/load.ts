import { type DeepReadonly, deepFreeze, RunnerError } from "../shared/index.js";
import { envOverrideSource } from "./env-overrides.js";
import { assertEnvWebhooks } from "./env-webhook-checks.js";
import { mergeSources } from "./merge.js";
import { describeIssues, formatProblems } from "./problems.js";
import { type EchoRunnerConfig, EchoRunnerConfigSchema } from "./schema.js";
import { collectSecretEnvNames } from "./secrets.js";
import {
  type ConfigPathOptions,
  type ConfigSource,
  DEFAULT_CONFIG_PATH,
  readYamlSource,
  resolveConfigPaths,
} from "./sources.js";

/** The loaded configuration, deep-frozen, with where each value came from. */
export interface LoadedConfig {
  config: DeepReadonly<EchoRunnerConfig>;
  /** Dotted leaf path → the sources that decided it. */
  origins: ReadonlyMap<string, readonly string[]>;
  /** The sources that were read, lowest precedence first. */
  sources: readonly { kind: ConfigSource["kind"]; origin: string }[];
}

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions extends ConfigPathOptions {
  /** Replaces the built-in defaults file (tests). */
  defaultConfigPath?: string;
  /** Extra sources merged after the files and before the environment (tests, embedding). */
  extraSources?: readonly ConfigSource[];
}

/**
 * Loads, merges and validates the config from every source. Throws RunnerError CONFIG_INVALID
 * listing every problem (path, bad value, allowed values, source) — never falls back to a default.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const paths = resolveConfigPaths(options);
  const fileSources: ConfigSource[] = [];
  const defaults = await readYamlSource("default", options.defaultConfigPath ?? DEFAULT_CONFIG_PATH, true);
  if (defaults) fileSources.push(defaults);
  const project = await readYamlSource("project", paths.project.path, paths.project.required);
  if (project) fileSources.push(project);
  if (paths.user) {
    const user = await readYamlSource("user", paths.user, false);
    if (user) fileSources.push(user);
  }
  fileSources.push(...(options.extraSources ?? []));
  const secretNames = collectSecretEnvNames(fileSources.map((s) => s.data));
  const sources = [...fileSources, envOverrideSource(env, secretNames)];
  const loaded = validateSources(sources);
  assertEnvWebhooks(loaded.config, env, loaded.origins);
  return loaded;
}

/** Merges and validates already-parsed sources (see {@link loadConfig}). */
export function validateSources(sources: readonly ConfigSource[]): LoadedConfig {
  const merged = mergeSources(sources);
  const result = EchoRunnerConfigSchema.safeParse(merged.data);
  if (!result.success) {
    const problems = describeIssues(result.error.issues, merged.data, merged.origins, EchoRunnerConfigSchema);
    throw new RunnerError(
      "CONFIG_INVALID",
      `the configuration has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${formatProblems(problems)}`,
      { data: { problems } },
    );
  }
  return {
    config: deepFreeze(result.data),
    origins: merged.origins,
    sources: sources.map((s) => ({ kind: s.kind, origin: s.origin })),
  };
}
