import type { Field } from "../shell/index.js";
import type { EmbeddedCommand } from "./embedded-commands.js";
import { gitCommandLine } from "./git-config.js";
import { optionValuesOf, readOptions } from "./option-reader.js";
import { optionSpec } from "./option-tables.js";
import { markUnknownParts, sedEffects, unmarkUnknownParts } from "./sed-script.js";
import type { Invocation } from "./unwrap.js";

/**
 * Programs that run programs named in their arguments, options or input: embedded script
 * languages (sed's `e` / `w` / `r`, ed and dc `!`, sqlite3 `.shell`, psql `\!`, mysql `system`,
 * expect, emacs, lldb), build tools and package managers (make `--eval` / `SHELL=` / a makefile on
 * stdin, `npm exec -c`, `--script-shell`, apt's `Pre-Invoke` hooks), git (`submodule foreach`,
 * `rebase --exec`, `bisect run`, `--template`), multiplexers (tmux), pagers (`less +!cmd`),
 * `parallel`, `find -fprint`, `docker run -v /:/h`. What they run, when the line shows it, comes
 * back as command text the guard analyses as a script (so `sed '1e rm -rf /'` is denied); a file
 * they write or read comes back as the redirection that does the same (`: > FILE`, `: < FILE`),
 * so the same file families judge it. What cannot be known (the input run as a command, a script
 * file, a value known only at run time) comes back as a reason to ask.
 */

/** A command text a runner runs; `direct` when it is no `sh -c` (a write or read as a redirection, expect's `spawn`). */
export interface RunnerCommand extends EmbeddedCommand {
  direct?: true;
}

/**
 * What a runner program runs: command texts to analyse (run with `sh -c`, as popen / system()
 * do, unless `direct`), and reasons it cannot be known.
 */
export interface RunnerCommands {
  commands: RunnerCommand[];
  unknown: string[];
}

const NONE: RunnerCommands = { commands: [], unknown: [] };

function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function writes(file: string, dynamic: boolean): RunnerCommand {
  return { text: `: > ${dynamic ? file : quoted(file)}`, dynamic, direct: true };
}

function reads(file: string, dynamic: boolean): RunnerCommand {
  return { text: `: < ${dynamic ? file : quoted(file)}`, dynamic, direct: true };
}

/** The values of the named options (`-e X`, `-eX`, `--execute=X`, `--execute X`). */
function values(args: readonly Field[], short: readonly string[], long: readonly string[]): Field[] {
  const out: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Field;
    const t = a.text;
    if (t === "--") break;
    for (const s of short) {
      if (t === s && args[i + 1]) out.push(args[i + 1] as Field);
      else if (t.startsWith(s) && t.length > s.length && !t.startsWith("--") && s.length === 2)
        out.push({ ...a, text: t.slice(s.length) });
    }
    for (const l of long) {
      if (t === l && args[i + 1]) out.push(args[i + 1] as Field);
      else if (t.startsWith(`${l}=`)) out.push({ ...a, text: t.slice(l.length + 1) });
    }
  }
  return out;
}

/** True when the command's standard input comes from somewhere the guard cannot read. */
function unknownInput(inv: Invocation): boolean {
  const cmd = inv.source;
  if (cmd.stdinText.length > 0) return false;
  return cmd.upstream.length > 0 || cmd.redirects.some((r) => r.op === "<" && (r.fd ?? "0") === "0");
}

function stdinLines(inv: Invocation): string[] {
  return inv.source.stdinText.flatMap((t) => t.split("\n"));
}

function sed(inv: Invocation): RunnerCommands {
  const spec = optionSpec("sed");
  if (!spec) return NONE;
  const read = readOptions(inv.args, spec);
  if (read.options.some((o) => o.name === "--sandbox")) return NONE;
  const scripts = optionValuesOf(read, "--expression");
  const files = [...optionValuesOf(read, "--file", "-f")];
  if (scripts.length === 0 && files.length === 0 && read.operands[0]) scripts.push(read.operands[0]);
  const out: RunnerCommands = { commands: [], unknown: [] };
  if (files.length > 0)
    out.unknown.push(
      `sed -f ${files.map((f) => f.text).join(" ")} reads its script from a file, whose e, w and r commands may run programs or touch files`,
    );
  for (const script of scripts) {
    const effects = sedEffects(
      script.dynamic ? markUnknownParts(script.pattern ?? script.text) : script.text,
    );
    if (effects.unknownCommand)
      out.unknown.push(
        `sed's script ${script.text} has a command known only at run time; its e, s///e, w and r commands run programs and touch files`,
      );
    else if (script.dynamic)
      // `s/x/$V/`, `${START},${END}p`: sed parses the value as script, so one holding the
      // delimiter or a newline adds commands of its own (`V='/;e reboot;#'`).
      out.unknown.push(
        `sed's script ${script.text} has parts known only at run time, which sed reads as script: a value holding the delimiter or a newline adds e, w or r commands that run programs and touch files`,
      );
    for (const text of effects.runs)
      out.commands.push({ text: unmarkUnknownParts(text), dynamic: script.dynamic });
    for (const file of effects.writes)
      if (!/^\/dev\/(stdout|stderr)$/.test(file))
        out.commands.push(writes(unmarkUnknownParts(file), script.dynamic));
    for (const file of effects.reads) out.commands.push(reads(unmarkUnknownParts(file), script.dynamic));
    if (effects.runsInput)
      out.unknown.push(`sed ${script.text} runs the text it edits (its input) as a command`);
  }
  return out;
}

/** ed / ex-style line editors fed commands on stdin: `!cmd`, `r !cmd`, `w !cmd`, `w file`, `r file`. */
function ed(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  if (unknownInput(inv)) out.unknown.push(`${inv.name} runs the commands it reads, which are not known here`);
  for (const line of stdinLines(inv)) {
    const bang = /^[^!]*?!(.*)$/.exec(line);
    if (bang) {
      out.commands.push({ text: bang[1] ?? "", dynamic: false });
      continue;
    }
    const file = /^[\d.,$;+\-'a-z]*?([wWreE])\s+(\S.*)$/.exec(line.trim());
    if (file) {
      const target = (file[2] ?? "").trim();
      out.commands.push(/[wW]/.test(file[1] ?? "") ? writes(target, false) : reads(target, false));
    }
  }
  return out;
}

/** dc: `!cmd` runs the rest of the line (in `-e` expressions, files and stdin). */
function dc(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const expressions = values(inv.args, ["-e"], ["--expression"]);
  const files = values(inv.args, ["-f"], ["--file"]);
  const operands = inv.args.filter(
    (a, i) => !a.text.startsWith("-") && !/^-[ef]$/.test(inv.args[i - 1]?.text ?? ""),
  );
  if (files.length > 0 || (expressions.length === 0 && operands.length > 0) || unknownInput(inv))
    out.unknown.push(
      `${inv.name} runs the rest of a line after ! as a command, and its input is not known here`,
    );
  const texts = [...expressions.map((e) => e.text), ...stdinLines(inv)];
  for (const text of texts)
    for (const m of text.matchAll(/!([^\n]*)/g)) out.commands.push({ text: m[1] ?? "", dynamic: false });
  return out;
}

/** Lines of SQL client input: the command-line statements and the here-documents. */
function clientTexts(inv: Invocation, statements: readonly Field[]): { texts: string[]; dynamic: boolean } {
  return {
    texts: [...statements.map((s) => s.text), ...inv.source.stdinText],
    dynamic: statements.some((s) => s.dynamic),
  };
}

function sqlite3(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const args = inv.args;
  const statements: Field[] = [];
  let db: Field | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Field;
    if (/^--?(cmd)$/.test(a.text)) {
      if (args[i + 1]) statements.push(args[i + 1] as Field);
      i++;
    } else if (/^--?(init)$/.test(a.text)) {
      out.unknown.push(`sqlite3 ${a.text} ${args[i + 1]?.text ?? ""} runs the dot-commands of a file`);
      i++;
    } else if (
      /^--?(separator|newline|nullvalue|vfs|maxsize|mmap|pagecache|lookaside|heap|escape)$/.test(a.text)
    )
      i++;
    else if (a.text.startsWith("-")) continue;
    else if (db === undefined) db = a;
    else statements.push(a);
  }
  if (statements.length === 0 && unknownInput(inv))
    out.unknown.push("sqlite3 runs the dot-commands it reads (.shell, .system), which are not known here");
  const { texts, dynamic } = clientTexts(inv, statements);
  for (const text of texts) {
    for (const m of text.matchAll(/(?:^|\n|;)\s*\.(?:shell|system)\s+([^\n]*)/g))
      out.commands.push({ text: m[1] ?? "", dynamic });
    for (const m of text.matchAll(
      /(?:^|\n|;)\s*\.(?:once|output|read|import|excel)\s+(?:-\S+\s+)*["']?\|\s*([^\n'"]*)/g,
    ))
      out.commands.push({ text: m[1] ?? "", dynamic });
    if (/(?:^|\n|;)\s*\.load\b|load_extension\s*\(/i.test(text))
      out.unknown.push("sqlite3 loads an extension, code the guard cannot read");
  }
  if (dynamic)
    out.unknown.push("sqlite3's commands are known only at run time; .shell and .system run programs");
  return out;
}

function psql(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const statements = values(inv.args, ["-c"], ["--command"]);
  const files = values(inv.args, ["-f"], ["--file"]).filter((f) => !/^(-|\/dev\/stdin)$/.test(f.text));
  if (files.length > 0)
    out.unknown.push(
      `psql -f ${files.map((f) => f.text).join(" ")} runs a file whose \\! commands run programs`,
    );
  if (statements.length === 0 && files.length === 0 && unknownInput(inv))
    out.unknown.push("psql runs the meta-commands it reads (\\!), which are not known here");
  const { texts, dynamic } = clientTexts(inv, statements);
  for (const text of texts) {
    for (const m of text.matchAll(/\\!\s*([^\n]*)/g)) out.commands.push({ text: m[1] ?? "", dynamic });
    for (const m of text.matchAll(
      /\\(?:o|out|g|gx|w|write|copy\b[^\n]*\b(?:to|from))\s*\|?\s*(?:program\s+)?'?\|\s*([^\n']*)/gi,
    ))
      out.commands.push({ text: m[1] ?? "", dynamic });
    for (const m of text.matchAll(/\bprogram\s+'((?:[^']|'')*)'/gi))
      out.commands.push({ text: (m[1] ?? "").replace(/''/g, "'"), dynamic });
  }
  if (dynamic) out.unknown.push("psql's commands are known only at run time; \\! runs programs");
  return out;
}

function mysql(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const statements = values(inv.args, ["-e"], ["--execute"]);
  for (const p of values(inv.args, [], ["--pager"])) out.commands.push({ text: p.text, dynamic: p.dynamic });
  if (statements.length === 0 && unknownInput(inv))
    out.unknown.push(`${inv.name} runs the commands it reads (system, \\!), which are not known here`);
  const { texts, dynamic } = clientTexts(inv, statements);
  for (const text of texts) {
    for (const m of text.matchAll(/(?:^|\n|;)\s*(?:system|\\!)\s+([^\n;]*)/gi))
      out.commands.push({ text: m[1] ?? "", dynamic });
    for (const m of text.matchAll(/(?:^|\n|;)\s*(?:pager|\\P)\s+([^\n;]*)/gi))
      out.commands.push({ text: m[1] ?? "", dynamic });
  }
  if (dynamic) out.unknown.push(`${inv.name}'s commands are known only at run time; system runs programs`);
  return out;
}

const STDIN_FILES = /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/** `$(shell cmd)` and recipe lines of a makefile text. */
function makefileCommands(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\$[({]shell\s+([^)}]*)[)}]/g)) out.push(m[1] ?? "");
  for (const line of text.split("\n")) {
    if (line.startsWith("\t")) out.push(line.slice(1).replace(/^[@+-]+/, ""));
    const rule = /^[^\t=#]*?:[^=]*?;(.*)$/.exec(line);
    if (rule) out.push(rule[1] ?? "");
  }
  return out;
}

function make(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const makefiles = values(inv.args, ["-f"], ["--file", "--makefile"]);
  // tree-sitter-bash drops a lone `-` right before a here-document (`make -f - <<E`): a `-f` with
  // no value left is that `-`.
  const lastFile = inv.args[inv.args.length - 1]?.text;
  if (makefiles.some((f) => STDIN_FILES.test(f.text)) || lastFile === "-f" || lastFile === "--file") {
    out.unknown.push(`${inv.name} runs the recipes of a makefile it reads from its input`);
    for (const text of inv.source.stdinText)
      for (const c of makefileCommands(text)) out.commands.push({ text: c, dynamic: false });
  }
  for (const e of values(inv.args, ["-E"], ["--eval"])) {
    out.unknown.push(`${inv.name} --eval ${e.text} adds makefile text, whose recipes run commands`);
    for (const c of makefileCommands(e.text)) out.commands.push({ text: c, dynamic: e.dynamic });
  }
  for (const a of [
    ...inv.args,
    ...inv.source.assignments.map((x) => ({ ...x.value, text: `${x.name}=${x.value.text}` })),
  ]) {
    const m = /^(SHELL|MAKESHELL|\.SHELLFLAGS)\s*[:+?]?=(.*)$/s.exec(a.text);
    if (!m) continue;
    out.unknown.push(`${inv.name} ${m[1]}=${m[2]} runs every recipe through that program`);
    if (m[1] !== ".SHELLFLAGS") out.commands.push({ text: m[2] ?? "", dynamic: a.dynamic });
  }
  return out;
}

/** npm / npx / pnpm / yarn: `exec -c CMD`, `--call CMD`, `--script-shell PROG`. */
function npm(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const calls = values(inv.args, ["-c"], ["--call"]);
  for (const c of calls) out.commands.push({ text: c.text, dynamic: c.dynamic });
  for (const s of values(inv.args, [], ["--script-shell"])) {
    out.unknown.push(`${inv.name} --script-shell=${s.text} runs every package script through that program`);
    out.commands.push({ text: s.text, dynamic: s.dynamic });
  }
  const env = inv.source.assignments.find((a) => /^npm_config_script_shell$/i.test(a.name));
  if (env) {
    out.unknown.push(
      `npm_config_script_shell=${env.value.text} runs every package script through that program`,
    );
    out.commands.push({ text: env.value.text, dynamic: env.value.dynamic });
  }
  const words = inv.args.map((a) => a.text);
  if (words[0] === "config" && words[1] === "set" && /script-shell/.test(words[2] ?? ""))
    out.unknown.push(`${inv.name} config set ${words[2]} changes the program that runs every package script`);
  return out;
}

const APT_HOOK =
  /::(pre|post)-invoke(-success)?(::|$)|::pre-install-pkgs|^dpkg::tools::options|^dir::bin::|^apt::(changelogs::server|key::gpgvcommand)/i;

function apt(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  for (const o of values(inv.args, ["-o"], ["--option"])) {
    const eq = o.text.indexOf("=");
    const key = eq >= 0 ? o.text.slice(0, eq) : o.text;
    if (!APT_HOOK.test(key)) continue;
    out.unknown.push(`${inv.name} -o ${key} sets a hook apt runs as a command`);
    if (/invoke|pre-install-pkgs/i.test(key))
      out.commands.push({ text: o.text.slice(eq + 1), dynamic: o.dynamic });
  }
  for (const c of values(inv.args, ["-c"], ["--config-file"]))
    out.unknown.push(`${inv.name} -c ${c.text} reads a configuration whose hooks run commands`);
  return out;
}

function git(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const line = gitCommandLine(inv.args);
  const args = line.args;
  const join = (fields: readonly Field[]) => ({
    text: fields.map((f) => f.text).join(" "),
    dynamic: fields.some((f) => f.dynamic),
  });
  switch (line.subcommand) {
    case "submodule": {
      const at = args.findIndex((a) => a.text === "foreach");
      if (at >= 0) {
        const rest = args.slice(at + 1).filter((a) => !/^(--recursive|-q|--quiet)$/.test(a.text));
        if (rest.length > 0) out.commands.push(join(rest));
      }
      break;
    }
    case "rebase":
      for (const x of values(args, ["-x"], ["--exec"]))
        out.commands.push({ text: x.text, dynamic: x.dynamic });
      break;
    case "bisect":
      if (args[0]?.text === "run" && args.length > 1) out.commands.push(join(args.slice(1)));
      break;
    case "difftool":
      for (const x of values(args, ["-x"], ["--extcmd"]))
        out.commands.push({ text: x.text, dynamic: x.dynamic });
      break;
    case "clone":
    case "init":
      for (const t of values(args, [], ["--template"]))
        out.unknown.push(
          `git ${line.subcommand} --template=${t.text} installs hooks from there, which run on later git commands`,
        );
      break;
    default:
  }
  return out;
}

/** GNU parallel: a command and its argument lists, or argument lists that are commands. */
function parallel(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const args = inv.args;
  const sep = args.findIndex((a) => /^:::+\+?$/.test(a.text));
  const head = sep >= 0 ? args.slice(0, sep) : args;
  let i = 0;
  const valued =
    /^(-[jPSIdaENnLlCs]|--(jobs|sshlogin|arg-file|delimiter|colsep|results|joblog|tmpdir|workdir|halt|timeout|retries|tag-string|shebang|max-args|max-lines|replace|basefile|env|sshloginfile|memfree|load|delay))$/;
  while (i < head.length && (head[i] as Field).text.startsWith("-"))
    i += valued.test((head[i] as Field).text) ? 2 : 1;
  const command = head.slice(i);
  const lists = sep >= 0 ? args.slice(sep) : [];
  const items = lists.filter((a) => !/^:::+\+?$/.test(a.text));
  const fromFiles = lists.some((a) => /^::::/.test(a.text)) || sep < 0;
  const text = command.map((c) => c.text).join(" ");
  const dynamic = command.some((c) => c.dynamic) || items.some((c) => c.dynamic);
  if (command.length === 0) {
    if (fromFiles)
      out.unknown.push(`${inv.name} runs the lines it reads as commands, which are not known here`);
    for (const item of items) out.commands.push({ text: item.text, dynamic: item.dynamic });
  } else if (items.length === 0 || fromFiles) {
    out.commands.push({ text, dynamic });
    if (fromFiles && /\{[^}]*\}/.test(text) && /^\{[^}]*\}/.test(text))
      out.unknown.push(`${inv.name} runs a program named by its input`);
  } else {
    for (const item of items)
      out.commands.push({
        text: /\{[^}]*\}/.test(text) ? text.replace(/\{[^}]*\}/g, item.text) : `${text} ${item.text}`,
        dynamic,
      });
  }
  return out;
}

const TMUX_COMMAND_SUBS =
  /^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw|run-shell|run|display-popup|popup|pipe-pane|pipep|if-shell|if)$/;
const TMUX_VALUED = /^-[cefFnstxylpLdDbBhHvwWoOTXS]$/;

function tmux(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const args = inv.args;
  let i = 0;
  for (; i < args.length && (args[i] as Field).text.startsWith("-"); i++) {
    const t = (args[i] as Field).text;
    if (t === "-c" && args[i + 1]) {
      out.commands.push({ text: (args[i + 1] as Field).text, dynamic: (args[i + 1] as Field).dynamic });
      return out;
    }
    if (/^-[fLST]$/.test(t)) i++;
  }
  // Commands are separated by `;` words (`\;` on the command line).
  const segments: Field[][] = [[]];
  for (const a of args.slice(i)) {
    if (a.text === ";") segments.push([]);
    else (segments[segments.length - 1] as Field[]).push(a);
  }
  for (const segment of segments) {
    const sub = segment[0]?.text ?? "";
    if (/^(send-keys|send|send-prefix|paste-buffer|pasteb|set-buffer|setb|load-buffer|loadb)$/.test(sub)) {
      out.unknown.push(`tmux ${sub} types text into a shell, which runs it`);
      continue;
    }
    if (
      /^(set-option|set|set-window-option|setw)$/.test(sub) &&
      segment.some((a) => /^default-(command|shell)$/.test(a.text))
    ) {
      out.unknown.push(`tmux ${sub} sets the command new panes run`);
      continue;
    }
    if (!TMUX_COMMAND_SUBS.test(sub)) continue;
    let k = 1;
    while (k < segment.length && (segment[k] as Field).text.startsWith("-")) {
      const t = (segment[k] as Field).text;
      k += TMUX_VALUED.test(t) && /^-[cefFnstxylpL]$/.test(t) ? 2 : 1;
    }
    const rest = segment.slice(k);
    if (rest.length > 0)
      out.commands.push({ text: rest.map((a) => a.text).join(" "), dynamic: rest.some((a) => a.dynamic) });
  }
  return out;
}

function lldb(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  for (const v of values(
    inv.args,
    ["-o", "-O", "-k", "-K"],
    ["--one-line", "--one-line-before-file", "--one-line-on-crash"],
  )) {
    const m = /^\s*(?:platform\s+shell|shell)\s+(.*)$/s.exec(v.text);
    if (m) out.commands.push({ text: m[1] ?? "", dynamic: v.dynamic });
    else if (/^\s*(script|command\s+script)\b/.test(v.text) || v.dynamic)
      out.unknown.push(`lldb ${v.text} runs code the guard cannot read`);
  }
  for (const f of values(inv.args, ["-s", "-S"], ["--source", "--source-before-file"]))
    out.unknown.push(`lldb runs the commands of ${f.text}`);
  return out;
}

function emacs(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  for (const v of values(inv.args, [], ["--eval", "-eval", "--execute", "-execute"])) {
    for (const m of v.text.matchAll(/\((?:async-)?shell-command(?:-to-string)?\s+"((?:\\.|[^"\\])*)"/g))
      out.commands.push({ text: (m[1] ?? "").replace(/\\(.)/g, "$1"), dynamic: v.dynamic });
    for (const m of v.text.matchAll(
      /\((?:call-process|start-process|process-lines|make-process)\b[^"]*"((?:\\.|[^"\\])*)"/g,
    ))
      out.commands.push({ text: (m[1] ?? "").replace(/\\(.)/g, "$1"), dynamic: v.dynamic });
  }
  return out;
}

function less(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  for (const a of inv.args) {
    const m = /^\++(.*)$/s.exec(a.text);
    const bang = m ? /^[^!]*!(.*)$/s.exec(m[1] ?? "") : null;
    if (bang) out.commands.push({ text: bang[1] ?? "", dynamic: a.dynamic });
  }
  for (const k of values(inv.args, ["-k"], ["--lesskey-file", "--lesskey-src"]))
    out.unknown.push(`${inv.name} -k ${k.text} reads key bindings, which can run shell commands`);
  return out;
}

function expect(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  for (const v of values(inv.args, ["-c"], [])) {
    for (const m of v.text.matchAll(/\b(spawn|exec|system)\s+(?:-\S+\s+)*([^;\]\n}]*)/g))
      out.commands.push(
        m[1] === "system"
          ? { text: m[2] ?? "", dynamic: v.dynamic }
          : { text: m[2] ?? "", dynamic: v.dynamic, direct: true },
      );
  }
  return out;
}

/** find's own writes (`-fprint FILE`, `-fprintf FILE FMT`, `-fls FILE`). */
function find(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const args = inv.args;
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as Field).text;
    if (/^-(fprint0?|fprintf|fls)$/.test(t) && args[i + 1])
      out.commands.push(writes((args[i + 1] as Field).text, (args[i + 1] as Field).dynamic));
  }
  return out;
}

/** Host paths whose bind mount gives a container the host (`/`, system directories, homes, the docker socket). */
const HOST_MOUNT =
  /^(\/|~[^/]*|~[^/]*\/\.[^/]+(\/.*)?|\/(etc|usr|var|boot|bin|sbin|lib\w*|home|root|opt|srv|dev|proc|sys|run|snap|mnt|nix|Users|private)(\/.*)?)$/i;

function containers(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  if (!inv.args.some((a) => /^(run|create)$/.test(a.text))) return out;
  const sources: Field[] = [];
  for (const v of values(inv.args, ["-v"], ["--volume"])) {
    const src = v.text.split(":")[0] ?? "";
    if (v.text.includes(":")) sources.push({ ...v, text: src });
  }
  for (const m of values(inv.args, [], ["--mount"])) {
    const src = /(?:^|,)(?:source|src)=([^,]*)/.exec(m.text)?.[1];
    if (src !== undefined) sources.push({ ...m, text: src });
  }
  for (const s of sources) {
    const path = s.text.replace(/\/+$/, "") || "/";
    if (HOST_MOUNT.test(path))
      out.unknown.push(
        `${inv.name} mounts the host's ${path} into a container, whose command runs as root on it`,
      );
  }
  if (inv.args.some((a) => /^--(privileged|pid=host|userns=host)$|^--cap-add=(all|sys_admin)$/i.test(a.text)))
    out.unknown.push(`${inv.name} runs a container with the host's privileges`);
  return out;
}

/** GNU screen: `screen [opts] cmd args` runs cmd; `-X stuff` types text into a window's shell. */
function screen(inv: Invocation): RunnerCommands {
  const out: RunnerCommands = { commands: [], unknown: [] };
  const args = inv.args;
  let i = 0;
  for (; i < args.length && (args[i] as Field).text.startsWith("-"); i++) {
    const t = (args[i] as Field).text;
    if (t === "-X") {
      const sub = args[i + 1]?.text ?? "";
      const rest = args.slice(i + 2);
      if (/^(stuff|paste|register|readreg|process)$/.test(sub))
        out.unknown.push(`screen -X ${sub} types text into a window's shell, which runs it`);
      else if (/^(exec|screen)$/.test(sub) && rest.length > 0)
        out.commands.push({
          text: rest.map((a) => a.text).join(" "),
          dynamic: rest.some((a) => a.dynamic),
          direct: true,
        });
      return out;
    }
    // Options that take the next word (`-S name`, `-c file`, ...), the last letter of a cluster.
    if (/^-[A-Za-z]*[SceEhpstT]$/.test(t)) i++;
  }
  const command = args.slice(i);
  if (command.length > 0)
    out.commands.push({
      text: command.map((a) => a.text).join(" "),
      dynamic: command.some((a) => a.dynamic),
      direct: true,
    });
  return out;
}

const RUNNERS: ReadonlyMap<string, (inv: Invocation) => RunnerCommands> = new Map(
  Object.entries({
    sed,
    gsed: sed,
    ed,
    red: ed,
    dc,
    sqlite3,
    sqlite: sqlite3,
    psql,
    mysql,
    mariadb: mysql,
    make,
    gmake: make,
    npm,
    npx: npm,
    pnpm: npm,
    yarn: npm,
    "apt-get": apt,
    apt,
    "apt-cache": apt,
    aptitude: apt,
    git,
    parallel,
    sem: parallel,
    tmux,
    screen,
    lldb,
    emacs,
    less,
    more: less,
    expect,
    find,
    docker: containers,
    podman: containers,
    nerdctl: containers,
  }),
);

/** The command texts a runner program runs, and the reasons what it runs cannot be known. */
export function runnerCommands(inv: Invocation): RunnerCommands {
  // A Map: a program named `constructor` or `__proto__` is no runner.
  const runner = RUNNERS.get(inv.name);
  return runner ? runner(inv) : NONE;
}
