import {
  type ConfigCommand as EmbeddedCommand,
  gitCommandLine,
  gitCommandLineSettings,
  judgeGitSettings,
} from "./git-config.js";
import { optionValuesOf, readOptions } from "./option-reader.js";
import { optionSpec } from "./option-tables.js";
import type { Field } from "./shell-words.js";
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

/** Command texts in an invocation's options, read with its option table. */
export function tableOptionCommands(inv: Invocation): EmbeddedCommand[] {
  const out: EmbeddedCommand[] = [];
  const names = COMMAND_OPTIONS[inv.name];
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
  if (inv.name === "git") {
    const line = gitCommandLine(inv.args);
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
