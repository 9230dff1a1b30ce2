import { parse } from "yaml";
import { RunnerError } from "../shared/index.js";
import type { ConfigSource } from "./sources.js";

/** Prefix of environment overrides: ECHO_RUNNER_TOOLS__DENY="[exec]" sets tools.deny. */
export const ENV_OVERRIDE_PREFIX = "ECHO_RUNNER_";

/**
 * ECHO_RUNNER_* variables that are not overrides: the config file path, the data dir, and every
 * variable a `*_env` key names (secrets such as ECHO_RUNNER_API_TOKEN).
 */
export const RESERVED_ENV_NAMES = [
  "ECHO_RUNNER_CONFIG",
  "ECHO_RUNNER_DATA_DIR",
  "ECHO_RUNNER_API_TOKEN",
] as const;

/**
 * Builds the environment source. Path segments are separated by a double underscore and lower-cased
 * (`ECHO_RUNNER_PERMISSIONS__APPROVAL__UNATTENDED_POLICY=deny`); values are YAML scalars or flow
 * collections (`[exec, process]`). Variables named by `secretEnvNames` are skipped. An unknown key is
 * reported by schema validation, attributed to the variable.
 */
export function envOverrideSource(env: NodeJS.ProcessEnv, secretEnvNames: ReadonlySet<string>): ConfigSource {
  const data: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_OVERRIDE_PREFIX) || raw === undefined) continue;
    if ((RESERVED_ENV_NAMES as readonly string[]).includes(name) || secretEnvNames.has(name)) continue;
    const segments = name.slice(ENV_OVERRIDE_PREFIX.length).toLowerCase().split("__");
    if (segments.some((s) => s.length === 0)) {
      throw new RunnerError(
        "CONFIG_INVALID",
        `environment variable ${name} does not name a config key: use ECHO_RUNNER_<SECTION>__<KEY>, e.g. ECHO_RUNNER_SECURITY__PROFILE`,
        { data: { variable: name } },
      );
    }
    let value: unknown;
    try {
      value = parse(raw);
    } catch (err) {
      throw new RunnerError("CONFIG_INVALID", `environment variable ${name} is not a valid YAML value`, {
        data: { variable: name },
        cause: err,
      });
    }
    let node = data;
    segments.forEach((segment, i) => {
      if (i === segments.length - 1) node[segment] = value ?? "";
      else {
        const next = node[segment];
        if (next === undefined || typeof next !== "object" || next === null) node[segment] = {};
        node = node[segment] as Record<string, unknown>;
      }
    });
  }
  return { kind: "env", origin: "environment", data };
}
