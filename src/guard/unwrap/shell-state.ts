import type { Assignment, Field } from "../shell/index.js";
import type { EmbeddedCommand } from "./embedded-commands.js";
import type { Invocation } from "./unwrap.js";

/**
 * Shell state that changes what a name or a word runs, which the guard does not follow: a name
 * reference (`declare -n r=x; $r`), the command hash table (`hash -p /sbin/reboot ls`), the
 * `BASH_CMDS` / `BASH_ALIASES` tables, builtins loaded from a library (`enable -f`), prompt strings
 * bash expands when it traces (`PS4='$(cmd)'` with `set -x`), completion generators (`compgen -W
 * '$(cmd)'`, `-C cmd`, `-F fn`), the history (`history -s`, `fc`), `mapfile` / `readarray`
 * callbacks (`-C cmd`) and message catalogs that translate `$"…"` (`TEXTDOMAIN`,
 * `TEXTDOMAINDIR`). Each makes the script too complex to judge (the guard asks, and denies when a
 * hard program is named anywhere in the script: see past-limits); a command text the construct
 * runs, when it is written out (`compgen -C cmd`, `mapfile -C cmd`, `fc -e cmd`), is analysed too.
 * Subscripts evaluated as arithmetic (`x[$(cmd)]=1`) are followed exactly by the walk instead.
 */

/** One construct found: why the script is too complex, and the command texts it runs. */
export interface ShellStateUse {
  reason: string;
  commands: EmbeddedCommand[];
}

/** Variables whose value bash expands or runs later, or that change what a name runs. */
const STATE_VARIABLE = /^(BASH_CMDS|BASH_ALIASES|TEXTDOMAIN|TEXTDOMAINDIR|PS0|PS1|PS2|PS3|PS4)(\[|$)/;
const DECLARERS = new Set(["declare", "typeset", "local", "readonly", "export"]);

/** Letters of the short-option clusters before the first operand (`-gn` → `gn`). */
function optionLetters(args: readonly Field[]): string {
  let letters = "";
  for (const a of args) {
    if (a.text === "--" || !/^[-+][A-Za-z]/.test(a.text)) break;
    if (a.text.startsWith("-")) letters += a.text.slice(1);
  }
  return letters;
}

/** The values of a short option in every spelling (`-C cmd`, `-Ccmd`, in a cluster `-xC cmd`). */
function shortValues(args: readonly Field[], letter: string): Field[] {
  const out: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as Field).text;
    if (t === "--") break;
    if (!/^-[A-Za-z]/.test(t)) continue;
    const at = t.indexOf(letter, 1);
    if (at < 0) continue;
    const rest = t.slice(at + 1);
    if (rest !== "") out.push({ ...(args[i] as Field), text: rest });
    else if (args[i + 1]) out.push(args[i + 1] as Field);
  }
  return out;
}

function expands(value: Field): boolean {
  return value.dynamic || /[$`]/.test(value.text);
}

/** Assignments (standalone, before a command, or given to `declare` / `export`) to state variables. */
export function stateAssignmentUses(assignments: readonly Assignment[]): ShellStateUse[] {
  const out: ShellStateUse[] = [];
  for (const { name, value } of assignments) {
    const m = STATE_VARIABLE.exec(name);
    if (!m) continue;
    const variable = m[1] as string;
    // A prompt without an expansion in it is only text.
    if (/^PS\d$/.test(variable) && !expands(value)) continue;
    out.push({
      reason: `${name}=${value.text} changes what bash runs or expands later (${describe(variable)}), which the guard does not follow`,
      commands: [],
    });
  }
  return out;
}

function describe(variable: string): string {
  if (variable === "BASH_CMDS") return "the command hash table";
  if (variable === "BASH_ALIASES") return "the aliases";
  if (variable.startsWith("TEXTDOMAIN")) return 'the catalog that translates $"…" strings';
  return "a prompt bash expands, also when it traces with set -x";
}

/** Builtins that change what a name runs, or run text from elsewhere. */
const STATE_BUILTINS: ReadonlySet<string> = new Set([
  "declare",
  "typeset",
  "local",
  "hash",
  "enable",
  "compgen",
  "complete",
  "history",
  "fc",
  "mapfile",
  "readarray",
]);

export function stateInvocationUses(inv: Invocation): ShellStateUse[] {
  if (!STATE_BUILTINS.has(inv.name)) return [];
  const letters = optionLetters(inv.args);
  const use = (reason: string, commands: EmbeddedCommand[] = []): ShellStateUse[] => [
    { reason: `${inv.name} ${reason}, which the guard does not follow`, commands },
  ];
  const texts = (fields: Field[]): EmbeddedCommand[] =>
    fields.map((f) => ({ text: f.text, dynamic: f.dynamic }));
  switch (inv.name) {
    case "declare":
    case "typeset":
    case "local":
      if (letters.includes("n")) return use("-n makes a name refer to another variable");
      return [];
    case "hash":
      if (letters.includes("p")) return use("-p makes a command name run another program");
      return [];
    case "enable":
      if (letters.includes("f")) return use("-f loads a builtin from a shared library");
      return [];
    case "compgen":
    case "complete": {
      const commands = texts(shortValues(inv.args, "C"));
      const words = shortValues(inv.args, "W").filter(expands);
      if (commands.length > 0 || words.length > 0 || letters.includes("F"))
        return use("generates completions by running commands or expanding words", commands);
      return [];
    }
    case "history":
      if (letters.includes("s")) return use("-s puts a command into the history, which fc can run");
      return [];
    case "fc":
      return use("runs commands from the history", texts(shortValues(inv.args, "e")));
    case "mapfile":
    case "readarray": {
      const commands = texts(shortValues(inv.args, "C"));
      return commands.length > 0 ? use("-C runs a callback for the lines it reads", commands) : [];
    }
    default:
      return [];
  }
}

/** `declare -n` / `local -n` / `typeset -n` (tree-sitter reads them as declarations, not commands). */
export function stateDeclarationUses(
  declarations: ReadonlyArray<{ keyword: string; options: readonly string[] }>,
): ShellStateUse[] {
  const out: ShellStateUse[] = [];
  for (const d of declarations) {
    if (d.keyword === "export" || d.keyword === "readonly") continue;
    if (d.options.some((o) => /^-[A-Za-z]*n/.test(o)))
      out.push({
        reason: `${d.keyword} -n makes a name refer to another variable, which the guard does not follow`,
        commands: [],
      });
  }
  return out;
}

/** The `NAME=value` operands of `declare` / `export` / `local` (they assign like `NAME=value`). */
export function declaredAssignments(inv: Invocation): Assignment[] {
  if (!DECLARERS.has(inv.name)) return [];
  const out: Assignment[] = [];
  for (const a of inv.args) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\+?=(.*)$/s.exec(a.text);
    if (m) out.push({ name: m[1] as string, value: { ...a, text: m[2] ?? "" } });
  }
  return out;
}
