import type { Field } from "../shell/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";
import { gitEnvironmentSettings, judgeGitSettings } from "./git-config.js";
import { tableOptionCommands } from "./option-commands.js";
import type { Invocation } from "./unwrap.js";

/**
 * Commands hidden in options, config and environment: `tar --to-command=CMD`, `rsync -e CMD`,
 * `ssh -o ProxyCommand=CMD`, `git -c core.pager=CMD`, `GIT_SSH_COMMAND=CMD git ...`,
 * `awk 'BEGIN { system("CMD") }'`. Their text is returned for the guard to analyse as a script, so
 * `GIT_PAGER=cat git log` stays allowed and `GIT_PAGER='rm -rf /' git log` is denied. Variables that
 * make a program load foreign code (`LD_PRELOAD`, `BASH_ENV`) need approval by themselves.
 */

/** A command text found in an option, a config value or an environment variable. */
export interface EmbeddedCommand {
  text: string;
  dynamic: boolean;
}

/** Values of the given options in every spelling: `--opt=v`, `--opt v`, `-o v`, `-ov`. */
function optionValues(args: readonly Field[], names: readonly string[]): Field[] {
  const out: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Field;
    const text = arg.text;
    if (text === "--") break;
    for (const name of names) {
      if (text === name) {
        const next = args[i + 1];
        if (next) out.push(next);
      } else if (name.startsWith("--") && text.startsWith(`${name}=`)) {
        out.push({ ...arg, text: text.slice(name.length + 1) });
      } else if (
        !name.startsWith("--") &&
        name.length === 2 &&
        text.startsWith(name) &&
        !text.startsWith("--")
      ) {
        out.push({ ...arg, text: text.slice(2) });
      }
    }
  }
  return out;
}

const OPTION_COMMANDS: Record<string, readonly string[]> = {
  tar: [
    "--to-command",
    "--use-compress-program",
    "-I",
    "--info-script",
    "--new-volume-script",
    "-F",
    "--rsh-command",
  ],
  rsync: ["-e", "--rsh", "--rsync-path"],
  scp: ["-S"],
  zip: ["-TT", "--unzip-command"],
  sort: ["--compress-program"],
  man: ["-P", "--pager"],
  git: ["--upload-pack", "--receive-pack", "--exec"],
  tcpdump: ["-z"],
};

const SSH_OPTIONS = /^(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand)\s*[= ]\s*(.*)$/is;

/** Environment variables whose value is a command line the program runs. */
const COMMAND_ENV = new Set([
  "GIT_SSH_COMMAND",
  "GIT_SSH",
  "GIT_PAGER",
  "PAGER",
  "MANPAGER",
  "SYSTEMD_PAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  "LESSOPEN",
  "LESSCLOSE",
  "BROWSER",
  "SSH_ASKPASS",
  "GIT_ASKPASS",
  "SUDO_ASKPASS",
  "PROMPT_COMMAND",
  "FCEDIT",
  // The shell tmux, screen, script, `sudo -s` and editors' `:!` start: a program of the line.
  "SHELL",
]);

/** Environment variables that make a program load code from elsewhere. */
const LOADER_ENV =
  /^(LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|GCONV_PATH|BASH_ENV|ENV|PERL5OPT|RUBYOPT|PYTHONSTARTUP)$/;

function fromValue(value: Field): EmbeddedCommand {
  // git aliases and some helpers mark a shell command with a leading `!`.
  return { text: value.text.replace(/^!/, ""), dynamic: value.dynamic };
}

/** Command texts hidden in an invocation's options (and, for awk, its `system()` calls). */
export function optionCommands(inv: Invocation): EmbeddedCommand[] {
  const out: EmbeddedCommand[] = tableOptionCommands(inv);
  // Own keys only: a program named `constructor` or `toString` is no key of the table.
  const names = Object.hasOwn(OPTION_COMMANDS, inv.name) ? OPTION_COMMANDS[inv.name] : undefined;
  if (names) for (const v of optionValues(inv.args, names)) out.push(fromValue(v));
  if (inv.name === "tar") {
    for (const v of optionValues(inv.args, ["--checkpoint-action"])) {
      if (v.text.startsWith("exec=")) out.push({ text: v.text.slice(5), dynamic: v.dynamic });
    }
  }
  if (inv.name === "ssh" || inv.name === "scp" || inv.name === "sftp" || inv.name === "rsync") {
    for (const v of optionValues(inv.args, ["-o"])) {
      const m = SSH_OPTIONS.exec(v.text);
      if (m) out.push({ text: m[2] ?? "", dynamic: v.dynamic });
    }
  }
  if (/^(vim?|nvim|view|ex|gdb|strace|ltrace)$/.test(inv.name)) {
    const values = optionValues(inv.args, ["-c", "--cmd", "-ex", "--eval-command", "-o"]);
    values.push(
      ...inv.args.filter((a) => a.text.startsWith("+")).map((a) => ({ ...a, text: a.text.slice(1) })),
    );
    for (const v of values) {
      const m = /^\s*(?::?\s*!|shell\s+|\|)(.*)$/s.exec(v.text);
      if (m) out.push({ text: m[1] ?? "", dynamic: v.dynamic });
    }
  }
  if (/^(awk|gawk|mawk|nawk)$/.test(inv.name)) {
    for (const a of inv.args) {
      for (const m of a.text.matchAll(/\bsystem\s*\(\s*"((?:\\.|[^"\\])*)"/g)) {
        out.push({ text: (m[1] ?? "").replace(/\\(.)/g, "$1"), dynamic: a.dynamic });
      }
    }
  }
  return out;
}

/** Command texts in `NAME=value` environment settings, and findings for code-loading variables. */
export function environmentCommands(env: ReadonlyArray<{ name: string; value: Field }>): {
  commands: EmbeddedCommand[];
  findings: GuardFinding[];
} {
  const git = gitEnvironmentSettings(env);
  const judged = judgeGitSettings(git.settings);
  const commands: EmbeddedCommand[] = [...judged.commands];
  const findings: GuardFinding[] = [...git.findings, ...judged.findings];
  for (const { name, value } of env) {
    if (COMMAND_ENV.has(name)) commands.push(fromValue(value));
    else if (LOADER_ENV.test(name)) {
      findings.push(
        softFinding("soft.env-injection", `${name}=${value.text} makes the program load code from elsewhere`),
      );
    } else if (
      name === "NODE_OPTIONS" &&
      /(^|\s)(-r|--require|--import|--loader|--experimental-loader)\b/.test(value.text)
    ) {
      findings.push(
        softFinding("soft.env-injection", `NODE_OPTIONS=${value.text} makes node load extra code`),
      );
    }
  }
  return { commands, findings };
}

/** The `NAME=value` operands `env` sets before running a program. */
export function envCommandAssignments(inv: Invocation): Array<{ name: string; value: Field }> {
  // `export X=...` (and declare -x, typeset -x) sets the environment of every later command.
  if (!/^(env|export|declare|typeset|readonly|local|sudo)$/.test(inv.name)) return [];
  const out: Array<{ name: string; value: Field }> = [];
  for (const a of inv.args) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a.text);
    if (m) out.push({ name: m[1] as string, value: { ...a, text: m[2] ?? "" } });
  }
  return out;
}
