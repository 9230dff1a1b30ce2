/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates */
/**
 * Which grammar runs a script. exec-class tools run their commands with bash (the grammar the
 * guard parses); a nested script handed to `sh -c`, `find -exec sh`, git's `!alias`, `tar
 * --to-command` or an interpreter's `os.system` is run by `/bin/sh`, which is dash on Debian.
 * tree-sitter only parses bash, so a POSIX shell's script is judged twice: as bash reads it, and as
 * a re-written text in which the bash-only constructs are spelt the way dash reads them (`[[` a
 * plain command word, `((` two subshells, `$'…'` a `$` and a single-quoted string, `&>` a
 * background `&` and a `>`). On top, any bash-only construct is flagged: what dash makes of it is
 * not something the guard can vouch for.
 */

/** The two grammars the guard judges a script under. */
export const SHELL_DIALECTS = ["bash", "posix"] as const;
export type ShellDialect = (typeof SHELL_DIALECTS)[number];

/** Wrappers whose script runs in the same shell as the command that names them. */
const SAME_SHELL = new Set(["eval", "trap", "alias", "source", "."]);
/** Shells that read bash's grammar. */
const BASH_SHELLS = new Set(["bash", "rbash"]);

/**
 * The dialect of a nested script, from the wrapper that hands it over (the last entry of its
 * `via`): bash for `bash -c`, the current dialect for `eval` / `trap` / `alias`, POSIX otherwise
 * (`sh`, `dash`, `zsh`, `watch`, `su -c`, `ssh`, git aliases, `--to-command`, environment hooks).
 */
export function nestedDialect(via: readonly string[], current: ShellDialect): ShellDialect {
  const last = via[via.length - 1] ?? "";
  if (SAME_SHELL.has(last)) return current;
  return BASH_SHELLS.has(last) ? "bash" : "posix";
}

const BASH_ONLY: ReadonlyArray<readonly [RegExp, string]> = [
  [/\$'/, "ANSI-C quoting $'…'"],
  [/\$"/, 'locale quoting $"…"'],
  [/\[\[/, "[[ … ]]"],
  [/(^|[^$])\(\(/, "arithmetic commands ((…))"],
  [/<<</, "here-strings <<<"],
  [/[<>]\(/, "process substitution <(…)"],
  [/(^|[^>&])&>/, "the &> redirection"],
  [/\|&/, "the |& pipe"],
  [/(^|[\s;&|(])function\s+[^\s(]/, "the function keyword"],
  [/(^|[\s;&|(])(select|coproc)\s/, "select / coproc"],
  [/[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=\(/, "arrays"],
  [/\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*\[/, "array subscripts"],
  [/\$\{![A-Za-z_@*#]/, "indirect expansion ${!x}"],
  [/\$\{[A-Za-z_][A-Za-z0-9_]*@[A-Za-z]/, "transformations ${x@P}"],
  [/\$\{[A-Za-z_0-9@*]+:[\s\d($A-Za-z]/, "substrings ${x:1:2}"],
  [/\$\{[A-Za-z_0-9@*]+(\/|\^|,)/, "substitution and case changes ${x/a/b}"],
  [/\{[^\s{}]*,[^\s{}]*\}|\{[^\s{}.]+\.\.[^\s{}]+\}/, "brace expansion {a,b}"],
  [/;;&|;&/, "case fall-through ;& / ;;&"],
  [/\$\[/, "$[…] arithmetic"],
];

/** The bash-only constructs in a script's text (checked on the text: quoted look-alikes count too). */
export function bashOnlyConstructs(text: string): string[] {
  return BASH_ONLY.filter(([re]) => re.test(text)).map(([, name]) => name);
}

/**
 * The script re-written so that tree-sitter-bash reads the bash-only constructs the way a POSIX
 * shell does; undefined when nothing changes. A re-reading only adds findings, so an over-eager
 * rewrite (inside quotes) costs at most a question.
 */
export function posixReading(text: string): string | undefined {
  const out = text
    .replace(/\[\[/g, "\\[[")
    .replace(/(?<![$\\])\((?=\()/g, "( ")
    .replace(/(^|[^\\])\$(['"])/g, "$1\\$$$2")
    .replace(/(^|[^>&])&>/g, "$1& >");
  return out === text ? undefined : out;
}
