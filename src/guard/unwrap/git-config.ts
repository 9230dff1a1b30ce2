import { type Field, literalField } from "../shell/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * Git configuration given on the command line or in the environment, read the way git reads it:
 * `-c key=value`, `--config-env=key=ENVVAR`, `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>` /
 * `GIT_CONFIG_VALUE_<n>`, and `GIT_CONFIG_PARAMETERS` (`'key'='value' ...`, what `git -c` hands to
 * its children). A key whose value git runs as a command (`core.fsmonitor`, `alias.x=!cmd`, ...) has
 * its value analysed as a script; one whose value is a path git loads code or configuration from
 * (`core.hooksPath`, `include.path`) needs approval, since the guard cannot read that file.
 */

/** A command text found in configuration (the same shape as embedded-commands' ConfigCommand). */
export interface ConfigCommand {
  text: string;
  dynamic: boolean;
}

/** Keys whose value git runs as a shell command. */
export const GIT_COMMAND_KEY =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|pager\..+|alias\..+|diff\..+\.(command|textconv)|diff\.external|merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential\..*helper|sequence\.editor|gpg\.(.+\.)?program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|vcs)|protocol\.ext\.allow|core\.alternaterefscommand|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|difftool\..+\.(cmd|path)|mergetool\..+\.(cmd|path)|sendemail\.(smtpserver|tocmd|cccmd)|instaweb\.httpd|ssh\.variant)$/i;

/** Keys whose value is a path git loads hooks, code or further configuration from. */
export const GIT_LOADING_KEY = /^(core\.hookspath|include\.path|includeif\..+\.path|core\.worktree)$/i;

/** Environment variables that point git at other configuration or programs. */
const GIT_LOADING_ENV = /^(GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_EXEC_PATH|GIT_TEMPLATE_DIR)$/;

/** One configuration setting and where it came from. */
export interface GitSetting {
  key: string;
  /** The value; undefined when it is read at run time from somewhere the guard cannot see. */
  value: Field | undefined;
  source: string;
}

/** What a list of git settings means: commands to analyse and findings of their own. */
export interface GitConfigEffect {
  commands: ConfigCommand[];
  findings: GuardFinding[];
}

/** Judges git settings: command values become scripts; loading keys and unseen values ask. */
export function judgeGitSettings(settings: readonly GitSetting[]): GitConfigEffect {
  const commands: ConfigCommand[] = [];
  const findings: GuardFinding[] = [];
  for (const s of settings) {
    if (GIT_COMMAND_KEY.test(s.key)) {
      if (s.value === undefined) {
        findings.push(
          softFinding(
            "soft.env-injection",
            `${s.source} sets git's ${s.key}, a command git runs, to a value the guard cannot see`,
          ),
        );
      } else {
        // An alias without `!` is a git command line (`alias.p=push --force` runs `git push --force`).
        const text =
          /^alias\./i.test(s.key) && !s.value.text.startsWith("!")
            ? `git ${s.value.text}`
            : s.value.text.replace(/^!/, "");
        commands.push({ text, dynamic: s.value.dynamic });
        if (s.value.dynamic)
          findings.push(
            softFinding(
              "soft.env-injection",
              `${s.source} sets git's ${s.key}, a command git runs, at run time`,
            ),
          );
      }
    } else if (GIT_LOADING_KEY.test(s.key)) {
      findings.push(
        softFinding(
          "soft.env-injection",
          `${s.source} sets git's ${s.key}${s.value ? `=${s.value.text}` : ""}, which makes git load hooks or configuration from there`,
        ),
      );
    }
  }
  return { commands, findings };
}

function splitSetting(field: Field, source: string): GitSetting {
  const eq = field.text.indexOf("=");
  // `git -c key` alone means key=true.
  if (eq < 0) return { key: field.text, value: literalField("true"), source };
  return { key: field.text.slice(0, eq), value: { ...field, text: field.text.slice(eq + 1) }, source };
}

/** git's global options that take a value (`git -C dir`, `git --git-dir x`). */
const GLOBAL_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--exec-path",
  "--list-cmds",
]);

/** git's own arguments split into global options, the subcommand and its arguments. */
export interface GitCommandLine {
  globals: Array<{ name: string; value: Field | undefined }>;
  subcommand: string | undefined;
  args: Field[];
}

/** Splits `git [globals] sub args`. git's global options are matched exactly (no abbreviation). */
export function gitCommandLine(args: readonly Field[]): GitCommandLine {
  const globals: GitCommandLine["globals"] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const text = (args[i] as Field).text;
    if (!text.startsWith("-")) break;
    const eq = text.indexOf("=");
    const name = text.startsWith("--") && eq > 0 ? text.slice(0, eq) : text;
    if (text.startsWith("--") && eq > 0) {
      globals.push({ name, value: { ...(args[i] as Field), text: text.slice(eq + 1) } });
    } else if (GLOBAL_VALUE.has(name) && name !== "--exec-path") {
      globals.push({ name, value: args[i + 1] });
      i++;
    } else if (/^-c./.test(text)) {
      globals.push({ name: "-c", value: { ...(args[i] as Field), text: text.slice(2) } });
    } else if (/^-C./.test(text)) {
      globals.push({ name: "-C", value: { ...(args[i] as Field), text: text.slice(2) } });
    } else globals.push({ name, value: undefined });
  }
  return { globals, subcommand: args[i]?.text, args: args.slice(i + 1) };
}

/** Settings from a git command line's `-c` and `--config-env` (with `env` the command's environment). */
export function gitCommandLineSettings(
  line: GitCommandLine,
  env: ReadonlyMap<string, Field>,
): { settings: GitSetting[]; findings: GuardFinding[] } {
  const settings: GitSetting[] = [];
  const findings: GuardFinding[] = [];
  for (const g of line.globals) {
    if (g.name === "-c" && g.value) settings.push(splitSetting(g.value, "git -c"));
    else if (g.name === "--config-env" && g.value) {
      const eq = g.value.text.lastIndexOf("=");
      const key = eq > 0 ? g.value.text.slice(0, eq) : g.value.text;
      const variable = eq > 0 ? g.value.text.slice(eq + 1) : "";
      settings.push({ key, value: env.get(variable), source: `git --config-env=${g.value.text}` });
    } else if (g.name === "--exec-path" && g.value) {
      findings.push(
        softFinding("soft.env-injection", `git --exec-path=${g.value.text} runs git's programs from there`),
      );
    }
  }
  return { settings, findings };
}

/** Parses `GIT_CONFIG_PARAMETERS`: `'key'='value'` pairs (or `'key=value'`), blank-separated. */
export function parseConfigParameters(text: string): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  const re = /'((?:[^'\\]|\\.|'\\'')*)'(?:=('((?:[^'\\]|\\.|'\\'')*)'))?/g;
  for (const m of text.matchAll(re)) {
    const unq = (s: string) => s.replace(/'\\''/g, "'");
    if (m[2] !== undefined) out.push({ key: unq(m[1] ?? ""), value: unq(m[3] ?? "") });
    else {
      const both = unq(m[1] ?? "");
      const eq = both.indexOf("=");
      out.push(eq < 0 ? { key: both, value: "true" } : { key: both.slice(0, eq), value: both.slice(eq + 1) });
    }
  }
  // Anything git would read that the pattern above did not: judge the whole text as unknown.
  if (out.length === 0 && text.trim() !== "") out.push({ key: "core.fsmonitor", value: text });
  return out;
}

/**
 * Settings from a process environment: `GIT_CONFIG_COUNT` / `_KEY_<n>` / `_VALUE_<n>` (every `n`
 * present, whatever the count says, since a later `export` may change it) and
 * `GIT_CONFIG_PARAMETERS`; plus findings for variables that point git elsewhere.
 */
export function gitEnvironmentSettings(env: ReadonlyArray<{ name: string; value: Field }>): {
  settings: GitSetting[];
  findings: GuardFinding[];
} {
  const settings: GitSetting[] = [];
  const findings: GuardFinding[] = [];
  const keys = new Map<string, Field>();
  const values = new Map<string, Field>();
  for (const { name, value } of env) {
    const key = /^GIT_CONFIG_KEY_(\d+)$/.exec(name);
    const val = /^GIT_CONFIG_VALUE_(\d+)$/.exec(name);
    if (key) keys.set(String(Number(key[1])), value);
    else if (val) values.set(String(Number(val[1])), value);
    else if (name === "GIT_CONFIG_PARAMETERS") {
      for (const p of parseConfigParameters(value.text))
        settings.push({
          key: p.key,
          value: { ...value, text: p.value },
          source: "GIT_CONFIG_PARAMETERS",
        });
    } else if (GIT_LOADING_ENV.test(name)) {
      findings.push(
        softFinding(
          "soft.env-injection",
          `${name}=${value.text} makes git read configuration or programs from there`,
        ),
      );
    }
  }
  for (const [n, key] of keys) {
    if (key.dynamic) {
      findings.push(
        softFinding("soft.env-injection", `GIT_CONFIG_KEY_${n} names a git setting chosen at run time`),
      );
      continue;
    }
    settings.push({ key: key.text, value: values.get(n), source: `GIT_CONFIG_KEY_${n}` });
  }
  // A value without its key (set in another command): judge it as the command it may be.
  for (const [n, value] of values)
    if (!keys.has(n)) settings.push({ key: "core.fsmonitor", value, source: `GIT_CONFIG_VALUE_${n}` });
  return { settings, findings };
}
