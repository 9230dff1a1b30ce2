import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { RunnerError } from "../shared/index.js";

/** Where a config value came from, lowest precedence first. */
export const CONFIG_SOURCE_KINDS = ["default", "project", "user", "env"] as const;
export type ConfigSourceKind = (typeof CONFIG_SOURCE_KINDS)[number];

/** One parsed config source. */
export interface ConfigSource {
  kind: ConfigSourceKind;
  /** File path, or "environment". */
  origin: string;
  data: Record<string, unknown>;
}

/**
 * The package's config/ folder (default.yaml, the demo) by its real path: from dist/ the relative
 * URL leads through the build's `dist/config` link, a name the operator never wrote (`config show`
 * prints each value's origin).
 */
export const PACKAGE_CONFIG_DIR = ((): string => {
  const dir = fileURLToPath(new URL("../../config", import.meta.url));
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
})();

/** The built-in defaults file shipped with the package. */
export const DEFAULT_CONFIG_PATH = join(PACKAGE_CONFIG_DIR, "default.yaml");

/** Why a config file could not be read, in words (the errno code in brackets for a search). */
function unreadableWhy(code: string | undefined, err: unknown): string {
  switch (code) {
    case "ENOENT":
      return "no such file (ENOENT); check the path given with --config or ECHO_RUNNER_CONFIG (relative paths start at the working directory)";
    case "EACCES":
    case "EPERM":
      return `permission denied (${code}); the runner's user must be able to read it`;
    case "EISDIR":
      return "it is a directory (EISDIR); name the YAML file itself";
    default:
      return code ?? String(err);
  }
}

/** Reads and parses one YAML file; a missing optional file yields undefined. */
export async function readYamlSource(
  kind: ConfigSourceKind,
  path: string,
  required: boolean,
): Promise<ConfigSource | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && code === "ENOENT") return undefined;
    throw new RunnerError(
      "CONFIG_FILE_UNREADABLE",
      `cannot read config file ${path}: ${unreadableWhy(code, err)}`,
      {
        data: { path },
        cause: err,
      },
    );
  }
  return { kind, origin: path, data: parseYamlConfig(text, path) };
}

/** Parses YAML text into a mapping; syntax errors and duplicate keys are errors with line and column. */
export function parseYamlConfig(text: string, origin: string): Record<string, unknown> {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => `  - ${e.message.split("\n")[0]}`).join("\n");
    throw new RunnerError("CONFIG_INVALID", `config file ${origin} is not valid YAML:\n${problems}`, {
      data: { origin, problems: doc.errors.map((e) => e.message) },
    });
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new RunnerError(
      "CONFIG_INVALID",
      `config file ${origin} must be a mapping of keys to values at the top`,
      {
        data: { origin },
      },
    );
  }
  return value as Record<string, unknown>;
}

/** Options naming the config files; see {@link resolveConfigPaths}. */
export interface ConfigPathOptions {
  /** `--config F`; when omitted, config/echo-runner.yaml under cwd if it exists. */
  configPath?: string | undefined;
  /** The user file; null disables it; default ~/.config/echo-runner/config.yaml. */
  userConfigPath?: string | null | undefined;
  cwd?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/** The project file (required when given explicitly) and the user file (optional). */
export function resolveConfigPaths(options: ConfigPathOptions): {
  project: { path: string; required: boolean };
  user: string | undefined;
} {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const explicit = options.configPath ?? env.ECHO_RUNNER_CONFIG;
  const project = explicit
    ? { path: isAbsolute(explicit) ? explicit : resolve(cwd, explicit), required: true }
    : { path: join(cwd, "config", "echo-runner.yaml"), required: false };
  let user: string | undefined;
  if (options.userConfigPath === null) user = undefined;
  else if (options.userConfigPath !== undefined) user = options.userConfigPath;
  else {
    const base = env.XDG_CONFIG_HOME ?? join(env.HOME ?? homedir(), ".config");
    user = join(base, "echo-runner", "config.yaml");
  }
  return { project, user };
}
