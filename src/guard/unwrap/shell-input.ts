import type { ShellDialect, SimpleCommand } from "../shell/index.js";
import { isInterpreter, SHELL_PROGRAMS } from "./programs.js";
import { type Invocation, unwrapCommand } from "./unwrap.js";

/**
 * Who reads the input a command is given (exec's `stdin`, `process write`): a shell anywhere in
 * the command may read it as a script (`sh`, `bash -s`, `bash -c 'eval "$(cat)"'`), an interpreter
 * as code (`python3`, `node`, `perl`). The guard judges the input accordingly: a script in the
 * grammar of the shells that may read it, code it cannot analyse as soft at least.
 */
export interface InputReaders {
  /** Grammar the input is judged in when a shell may read it; undefined when no shell does. */
  shell: ShellDialect | undefined;
  /** Shells and interpreters in the command (their names). */
  programs: string[];
  /** Those started with no script at all: they read their code from their input. */
  bare: string[];
}

const BASH_READERS = new Set(["bash", "rbash", "source", "."]);
const INFO_FLAG = /^(-V|-v|--version|-h|--help|-\?|-VV)$/;
const CODE_FLAG = /^-[A-Za-z]*[cemrEp]$|^--(eval|print|command|module)(=|$)/;
const SCRIPT_FROM_INPUT = new Set(["-", "-s", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

function startedWithoutScript(inv: Invocation): boolean {
  if (inv.name === "source" || inv.name === "." || inv.name === "eval") return false;
  let operands = 0;
  for (const a of inv.args) {
    const t = a.text;
    if (SCRIPT_FROM_INPUT.has(t)) return true;
    if (INFO_FLAG.test(t) || CODE_FLAG.test(t)) return false;
    if (!t.startsWith("-")) operands++;
  }
  return operands === 0;
}

/** The shells and interpreters among `commands` and what they read (see {@link InputReaders}). */
export function inputReaders(commands: readonly SimpleCommand[]): InputReaders {
  const programs: string[] = [];
  const bare: string[] = [];
  let shell: ShellDialect | undefined;
  for (const cmd of commands) {
    for (const inv of unwrapCommand(cmd).invocations) {
      if (!isInterpreter(inv.name)) continue;
      programs.push(inv.name);
      // `source` / `.` run what they read in the shell itself (bash).
      if (SHELL_PROGRAMS.has(inv.name) || inv.name === "source" || inv.name === ".")
        shell = BASH_READERS.has(inv.name) ? (shell ?? "bash") : "posix";
      if (startedWithoutScript(inv)) bare.push(inv.name);
    }
  }
  return { shell, programs: [...new Set(programs)], bare: [...new Set(bare)] };
}
