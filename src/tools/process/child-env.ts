import { RunnerError } from "../../shared/index.js";

/**
 * Variables a process started by a tool inherits from the worker; every other variable is dropped.
 * The worker's environment holds REDIS_URL, API keys, SMTP passwords and tokens, and a command
 * run for a model must see none of them.
 */
export const CHILD_ENV_ALLOW = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TZ",
  "TERM",
  "TMPDIR",
] as const;

// Names that hold secrets by convention; refused even when an operator allow-lists them.
const SECRET_NAME =
  /(^|_)(KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|COOKIE|SESSION|PRIVATE|DSN|CERT)($|_)|^(REDIS|DATABASE|MONGO|POSTGRES|MYSQL|AMQP)_?URL$|_URL$/i;

/**
 * Variables that make a shell run code or change how it reads a script before the command starts:
 * start-up files (`BASH_ENV`, `ENV`), options (`SHELLOPTS`, `BASHOPTS`: xtrace with `PS4`'s
 * substitutions), exported functions (`BASH_FUNC_name%%`), and hooks (`PROMPT_COMMAND`, `PS4`).
 * Never passed to a child, even when an operator allow-lists them.
 */
const SHELL_STARTUP_NAME =
  /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS4|BASH_XTRACEFD|GLOBIGNORE|CDPATH|IFS|POSIXLY_CORRECT|EXECIGNORE)$|^BASH_FUNC_/;

/** True for a variable that changes what a shell runs at start-up ({@link SHELL_STARTUP_NAME}). */
export function isShellStartupEnvName(name: string): boolean {
  return SHELL_STARTUP_NAME.test(name);
}

/** True when a variable name looks like it holds a secret (`*_KEY`, `*_TOKEN`, `REDIS_URL`, ...). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Checks an operator's extra allow-list: valid names only, and none that look like secrets. Throws
 * RunnerError TOOL_DEFINITION_INVALID naming the variable.
 */
export function resolveEnvAllow(extra: readonly string[] = []): readonly string[] {
  for (const name of extra) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new RunnerError(
        "TOOL_DEFINITION_INVALID",
        `environment variable name ${JSON.stringify(name)} is invalid`,
        {
          data: { field: "envAllow", name },
        },
      );
    }
    if (isShellStartupEnvName(name)) {
      throw new RunnerError(
        "TOOL_DEFINITION_INVALID",
        `environment variable ${name} changes what bash runs before a command starts and is never passed to processes`,
        { data: { field: "envAllow", name } },
      );
    }
    if (isSecretEnvName(name)) {
      throw new RunnerError(
        "TOOL_DEFINITION_INVALID",
        `environment variable ${name} looks like a secret and is never passed to processes; pass credentials through the tool context instead`,
        { data: { field: "envAllow", name } },
      );
    }
  }
  return Object.freeze([...new Set([...CHILD_ENV_ALLOW, ...extra])]);
}

/**
 * The environment of a tool's process: only allow-listed variables of `source` (the worker's
 * environment), a fallback PATH when it has none, and `extra` (set by the tool itself, e.g. PWD).
 */
export function childEnv(
  source: NodeJS.ProcessEnv,
  allow: readonly string[],
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allow) {
    const value = source[name];
    if (typeof value === "string" && !isSecretEnvName(name) && !isShellStartupEnvName(name))
      env[name] = value;
  }
  if (env.PATH === undefined) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  for (const [name, value] of Object.entries(extra)) if (!isShellStartupEnvName(name)) env[name] = value;
  return env;
}
