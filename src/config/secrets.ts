import { RunnerError } from "../shared/index.js";

/**
 * Reads a secret from the environment variable a `*_env` key names. The value is returned to the
 * caller that needs it and never stored in the config, logs, job payloads or results.
 */
export function resolveSecret(envName: string, env: NodeJS.ProcessEnv, purpose: string): string {
  const value = env[envName];
  if (value === undefined || value === "") {
    throw new RunnerError(
      "CONFIG_SECRET_MISSING",
      `${purpose} needs a secret in the environment variable ${envName}, which is not set`,
      { data: { variable: envName } },
    );
  }
  return value;
}

/** Like {@link resolveSecret} but undefined when unset. */
export function optionalSecret(envName: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[envName];
  return value === undefined || value === "" ? undefined : value;
}

/** Masks the password (and user) of a URL such as redis://user:pass@host:6379. */
export function maskUrlCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    if (parsed.username && parsed.password) parsed.username = "***";
    else if (parsed.username) parsed.username = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/** Every environment variable name that a `*_env` key anywhere in `data` refers to. */
export function collectSecretEnvNames(data: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(data)) for (const item of data) collectSecretEnvNames(item, into);
  else if (data !== null && typeof data === "object") {
    for (const [key, value] of Object.entries(data)) {
      if (key.endsWith("_env") && typeof value === "string") into.add(value);
      else if (key === "env_from" && value && typeof value === "object") {
        for (const name of Object.values(value)) if (typeof name === "string") into.add(name);
      } else collectSecretEnvNames(value, into);
    }
  }
  return into;
}
