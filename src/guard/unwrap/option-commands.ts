import type { Field } from "../shell/index.js";
import {
  type ConfigCommand as EmbeddedCommand,
  gitCommandLine,
  gitCommandLineSettings,
  judgeGitSettings,
} from "./git-config.js";
import { optionValuesOf, readOptions } from "./option-reader.js";
import { optionSpec } from "./option-tables.js";
import type { Invocation } from "./unwrap.js";

/**
 * Commands hidden in options, read through the programs' option tables so that every spelling the
 * program accepts is seen: `tar --to-com=CMD`, `tar -I CMD`, `tar cIf CMD a.tar`,
 * `--checkpoint-act=exec=CMD`, `sort --compress-prog=CMD`, `rsync --rs=CMD`,
 * `git fetch --upload-p=CMD`, and git configuration that names a command.
 */

/** Options whose value a program runs as a command, per program (canonical long names). */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  tar: [
    "--to-command",
    "--use-compress-program",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
  ],
  sort: ["--compress-program"],
  rsync: ["--rsh", "--rsync-path"],
};

const GIT_SUB_COMMAND_OPTIONS = ["--upload-pack", "--receive-pack", "--exec"];

/** The environment an invocation runs with, as far as the command line shows it. */
export function invocationEnv(inv: Invocation): Map<string, Field> {
  const env = new Map<string, Field>();
  for (const a of inv.source.assignments) env.set(a.name, a.value);
  // `env X=1 git ...`, `sudo X=1 git ...`: the wrapper's operands.
  if (inv.via.includes("env") || inv.via.includes("sudo")) {
    for (const a of inv.source.argv) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a.text);
      if (m) env.set(m[1] as string, { ...a, text: m[2] ?? "" });
    }
  }
  return env;
}

function fromValue(value: Field): EmbeddedCommand {
  return { text: value.text.replace(/^!/, ""), dynamic: value.dynamic };
}

/**
 * Commands network programs run with the connection as their input and output: `nc -e PROG`,
 * `nc -c CMD`, `ncat --sh-exec CMD`, socat `EXEC:` / `SYSTEM:` addresses.
 */
function networkProgramCommands(inv: Invocation): EmbeddedCommand[] {
  const out: EmbeddedCommand[] = [];
  if (/^(nc|ncat|netcat)$/.test(inv.name)) {
    for (let i = 0; i < inv.args.length; i++) {
      const t = (inv.args[i] as Field).text;
      const m = /^(-e|-c|--exec|--sh-exec|--lua-exec)(?:=(.*))?$/.exec(t) ?? /^-([ec])(.+)$/.exec(t);
      if (!m) continue;
      const value = m[2] !== undefined ? { ...(inv.args[i] as Field), text: m[2] } : inv.args[i + 1];
      if (value && !t.startsWith("--lua")) out.push({ text: value.text, dynamic: value.dynamic });
    }
  }
  if (inv.name === "socat") {
    for (const a of inv.args) {
      const m = /^(exec|system):(.*)$/is.exec(a.text);
      if (m) out.push({ text: (m[2] ?? "").split(",")[0] ?? "", dynamic: a.dynamic });
    }
  }
  return out;
}

/** Command texts in an invocation's options, read with its option table. */
export function tableOptionCommands(inv: Invocation): EmbeddedCommand[] {
  const out: EmbeddedCommand[] = [];
  const names = Object.hasOwn(COMMAND_OPTIONS, inv.name) ? COMMAND_OPTIONS[inv.name] : undefined;
  const spec = optionSpec(inv.name);
  if (names && spec) {
    const read = readOptions(inv.args, spec);
    for (const v of optionValuesOf(read, ...names)) out.push(fromValue(v));
    if (inv.name === "tar") {
      for (const v of optionValuesOf(read, "--checkpoint-action")) {
        if (v.text.startsWith("exec=")) out.push({ text: v.text.slice(5), dynamic: v.dynamic });
        // A value known only at run time may be `exec=...`: analysed, it reads as a computed command.
        else if (v.dynamic) out.push({ text: v.text, dynamic: true });
      }
    }
  }
  out.push(...networkProgramCommands(inv));
  if (inv.name === "git") {
    const line = gitCommandLine(inv.args);
    // `git clone 'ext::sh -c cmd'`: the ext transport runs its URL as a command.
    for (const a of line.args) {
      if (/^ext::/i.test(a.text))
        out.push({ text: a.text.slice(5).replace(/%[sSGV%]/g, " "), dynamic: a.dynamic });
    }
    out.push(...judgeGitSettings(gitCommandLineSettings(line, invocationEnv(inv)).settings).commands);
    const sub = line.subcommand ? optionSpec(`git ${line.subcommand}`) : undefined;
    if (sub)
      out.push(...optionValuesOf(readOptions(line.args, sub), ...GIT_SUB_COMMAND_OPTIONS).map(fromValue));
    else {
      // A subcommand without a table (`git archive --exec=...`): exact spellings only.
      for (let i = 0; i < line.args.length; i++) {
        const t = (line.args[i] as Field).text;
        for (const o of GIT_SUB_COMMAND_OPTIONS) {
          if (t === o && line.args[i + 1]) out.push(fromValue(line.args[i + 1] as Field));
          else if (t.startsWith(`${o}=`))
            out.push({ text: t.slice(o.length + 1), dynamic: (line.args[i] as Field).dynamic });
        }
      }
    }
  }
  return out;
}
