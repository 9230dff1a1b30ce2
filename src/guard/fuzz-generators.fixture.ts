/**
 * Generators for the command guard's fuzz test: a seeded PRNG, random strings over shell-significant
 * characters, and hard-family commands obfuscated and wrapped in random constructs.
 */

/** mulberry32: a small seeded PRNG, so every failure can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

/** A command the generator wraps: its name (obfuscated) and its arguments after it. */
export interface FuzzCommand {
  name: string;
  rest: string;
}

const HARD_COMMANDS: readonly FuzzCommand[] = [
  { name: "rm", rest: " -rf /" },
  { name: "rm", rest: " -fr ~" },
  { name: "rm", rest: " --recursive --force /etc" },
  { name: "rm", rest: " -r -f $HOME" },
  { name: "reboot", rest: "" },
  { name: "shutdown", rest: " -h now" },
  { name: "poweroff", rest: "" },
  { name: "systemctl", rest: " reboot" },
  { name: "mkfs.ext4", rest: " /dev/sda1" },
  { name: "wipefs", rest: " -a /dev/sda" },
  { name: "dd", rest: " if=/dev/zero of=/dev/sda" },
  { name: "cat", rest: " /etc/shadow" },
  { name: "cp", rest: " /etc/gshadow /tmp/x" },
  { name: "find", rest: " / -delete" },
];

const FORK_BOMBS = [":(){ :|:& };:", "b(){ b|b& };b"];

function obfuscateName(rand: () => number, name: string): string {
  switch (Math.floor(rand() * 7)) {
    case 0:
      return `${name.slice(0, 1)}''${name.slice(1)}`;
    case 1:
      return `\\${name}`;
    case 2:
      return `"${name}"`;
    case 3:
      return `$'${[...name].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("")}'`;
    case 4:
      return `/usr/bin/${name}`;
    case 5:
      return `${name.slice(0, 1)}""${name.slice(1)}`;
    default:
      return name;
  }
}

const singleQuoted = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const doubleQuoted = (s: string) => `"${s.replace(/[\\"$`]/g, "\\$&")}"`;
/**
 * Old-style command substitution. Inside backquotes a backslash quotes only `\`, `` ` `` and `$`, so
 * escaping every backslash and backquote hands the inner shell exactly `s`, however deep the nesting.
 * Unescaped, a nested pair closes the outer one and the hard command becomes an argument of echo.
 */
export const backquoted = (s: string) => `\`${s.replace(/[\\`]/g, "\\$&")}\``;

/** `command` is a shell builtin: a program run by sudo, env or nohup cannot be `command …`. */
const viaBuiltin = (c: string) => `command ${c}`;

/** Wrappers that take a simple command and give a simple command. */
const PREFIXES: ReadonlyArray<(c: string) => string> = [
  (c) => `sudo ${c}`,
  (c) => `timeout 5 ${c}`,
  (c) => `env FOO=1 ${c}`,
  (c) => `nice -n 5 ${c}`,
  viaBuiltin,
  (c) => `doas ${c}`,
  (c) => `stdbuf -o0 ${c}`,
];

/** Constructs that take any command list; each runs it once at least. */
export const WRAPPERS: ReadonlyArray<(c: string) => string> = [
  // Spaced, so that two nested ones are not `((`, arithmetic.
  (c) => `( ${c} )`,
  (c) => `{ ${c}; }`,
  (c) => `echo start; ${c}`,
  (c) => `${c} && echo ok`,
  (c) => `false || ${c}`,
  (c) => `echo "$( ${c} )"`,
  (c) => `x=$( ${c} )`,
  (c) => `cat <(${c})`,
  (c) => `if true; then ${c}; fi`,
  (c) => `for i in 1 2; do ${c}; done`,
  (c) => `while true; do ${c}; break; done`,
  // Braced, so that after a pipe (a subshell) the function is still defined where it is called.
  (c) => `{ g() { ${c}; }; g; }`,
  (c) => `sh -c ${singleQuoted(c)}`,
  (c) => `bash -c ${doubleQuoted(c)}`,
  (c) => `${c} | tee log.txt`,
  // Braced: `!`, `time` and a function definition cannot follow a pipe as they are.
  (c) => `ls | { ${c}; }`,
  (c) => `${c} 2>/dev/null`,
  (c) => `echo ${backquoted(c)}`,
  (c) => `case x in x) ${c};; esac`,
  // Braced: bash does not parse `time {` or `time if` right after `$(` or `<(`.
  (c) => `{ time ${c}; }`,
  (c) => `eval ${singleQuoted(c)}`,
  (c) => `echo ok\n${c}`,
  // The delimiter must stand alone on its line, so what an outer wrapper appends goes on a line of
  // its own after a `:`. Bash cannot parse a here-document in a substitution in a here-document, so
  // a command that already holds one is substituted into a plain word instead.
  (c) => (c.includes("<<EOF") ? `x=$( ${c} )` : `cat <<EOF\n$( ${c} )\nEOF\n:`),
];

/** Re-spells the spaces between words: `${IFS}`, `$IFS`, a line continuation or a tab. */
function obfuscateSpaces(rand: () => number, rest: string): string {
  // A line continuation joins what is either side of it, so it follows a space.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax, not a template
  return rest.replace(/ /g, () => pick(rand, [" ", " ", "${IFS}", " \\\n", "\t", "  "]));
}

/** Re-spells an argument: quoted in parts, escaped, or built by brace expansion. */
function obfuscateArg(rand: () => number, arg: string): string {
  if (arg.length < 2 || arg.includes("=") || arg.startsWith("$")) return arg;
  switch (Math.floor(rand() * 5)) {
    case 0:
      return `${arg.slice(0, 1)}''${arg.slice(1)}`;
    case 1:
      return `"${arg}"`;
    case 2:
      return `${arg.slice(0, -1)}\\${arg.slice(-1)}`;
    case 3:
      return `{${arg},}`;
    default:
      return arg;
  }
}

/**
 * A hard-family command (or a fork bomb), obfuscated and wrapped. `commands` swaps in other commands
 * (and drops the fork bombs) so a test can run the very same shapes through bash harmlessly.
 */
export function randomHardScript(
  rand: () => number,
  commands: readonly FuzzCommand[] = HARD_COMMANDS,
): string {
  let script: string;
  const forkBomb = rand() < 0.1;
  if (forkBomb && commands === HARD_COMMANDS) script = pick(rand, FORK_BOMBS);
  else {
    const hard = pick(rand, commands);
    const args = hard.rest.split(" ").map((a) => (rand() < 0.3 ? obfuscateArg(rand, a) : a));
    const rest = args.join(" ");
    script = `${obfuscateName(rand, hard.name)}${rand() < 0.3 ? obfuscateSpaces(rand, rest) : rest}`;
  }
  let simple = !script.includes("(");
  // Whether the simple command starts with a program (not the builtin `command`), which sudo and
  // the like can run.
  let program = true;
  const depth = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < depth; i++) {
    if (simple && rand() < 0.4) {
      const prefix = program ? pick(rand, PREFIXES) : viaBuiltin;
      script = prefix(script);
      if (prefix === viaBuiltin) program = false;
    } else if (simple && rand() < 0.2) {
      // Braced: `… &` is a whole command, and `&;` (what a wrapper appends) would not parse.
      script = rand() < 0.5 && program ? `{ nohup ${script} & }` : `! ${script}`;
      simple = false;
    } else {
      script = pick(rand, WRAPPERS)(script);
      simple = false;
    }
  }
  return script;
}

const ALPHABET = "rm -f/~$(){}[]<>|&;'\"`\\\n\t*?!#=:.,@%^0123456789abcdefshxyz\u200b\u00a0é";

export function randomString(rand: () => number): string {
  const length = Math.floor(rand() * 60);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return out;
}

/**
 * Harmless commands with the shapes of the hard ones, for running generated scripts for real
 * (the differential test): each exec's a real program, none harms the sandbox it runs in.
 */
export const TRACEABLE_COMMANDS: readonly FuzzCommand[] = [
  { name: "rm", rest: " -rf ./victim" },
  { name: "touch", rest: " ran" },
  { name: "mkdir", rest: " -p a/b" },
  { name: "cat", rest: " /etc/hostname" },
  { name: "cp", rest: " /etc/hostname ./h" },
  { name: "dd", rest: " if=/dev/zero of=./z bs=1 count=1" },
  { name: "id", rest: " -u" },
  { name: "uname", rest: " -a" },
  { name: "chmod", rest: " 600 ./missing" },
  { name: "find", rest: " . -name nothing -delete" },
  { name: "head", rest: " -c 1 /etc/hostname" },
];

/**
 * The constructs of #15's findings 1 and 2 around a command: what dash reads differently from bash
 * (`[[`, `((`, `&>`, `$'…'` in a script `sh` runs) and strings bash evaluates at run time
 * (arithmetic, `[[ -eq ]]`, `-v`, `declare`, `printf -v`, `${x@P}`). Each runs `c` in bash or dash.
 */
export const EVALUATION_WRAPPERS: ReadonlyArray<(c: string) => string> = [
  (c) => `sh -c ${singleQuoted(`[[ 1 || ${c} ]]`)}`,
  (c) => `sh -c ${singleQuoted(`[[ -n x ]] || ${c} ]]`)}`,
  (c) => `sh -c ${singleQuoted(`((${c}))`)}`,
  (c) => `sh -c ${singleQuoted(`true &>/dev/null; ${c}`)}`,
  (c) => `sh -c ${singleQuoted(`echo $''' ; ${c} ; '`)}`,
  (c) => `x=${singleQuoted(`y[$(${c})]`)}; echo $((x))`,
  (c) => `x=${singleQuoted(`y[$(${c})]`)}; (( x ))`,
  (c) => `x=${singleQuoted(`y[$(${c})]`)}; [[ $x -eq 1 ]]`,
  (c) => `[[ -v ${singleQuoted(`a[$(${c})]`)} ]]`,
  (c) => `declare ${singleQuoted(`a[$(${c})]=1`)}`,
  (c) => `printf -v ${singleQuoted(`a[$(${c})]`)} %s 1`,
  (c) => `p=${singleQuoted(`$(${c})`)}; echo "\${p@P}"`,
  (c) => `a=(); x=${singleQuoted(`a[$(${c})]`)}; echo "\${!x}"`,
  (c) => `find . -maxdepth 0 -exec sh -c ${singleQuoted(`[[ 1 || ${c} ]]`)} \\;`,
];

/**
 * The families around a command (`name` and its arguments `rest`): shell state that
 * changes what a name runs (namerefs, `hash -p`, `BASH_CMDS`, `PS4` under `set -x`, `compgen -W`,
 * `mapfile -C`, subscripts) and programs that run programs (sed `e`, ed `!`, `find -exec`, make,
 * sqlite3 `.shell`, capsh, `xargs` into wrappers, a copied binary, less's `LESSOPEN`, tmux, mysql
 * `system`, psql `\!`; expect, lldb, emacs and GNU parallel are not installed on the test machines)
 * and command names computed at run time (a loop variable, `read`, `+=`, `set --`). The guard must
 * name what runs, or refuse the line as unknown.
 */
export const RUNNER_WRAPPERS: ReadonlyArray<(name: string, rest: string) => string> = [
  (n, r) => `x=${n}; declare -n ref=x; $ref${r}`,
  (n, r) => `declare -n ref=x; x=${n}; "$ref"${r}`,
  (n, r) => `hash -p /usr/bin/${n} ls; ls${r}`,
  (n, r) => `BASH_CMDS[ls]=/usr/bin/${n}; ls${r}`,
  (n, r) => `PS4=${singleQuoted(`$(${n}${r})`)}; set -x; true`,
  (n, r) => `compgen -W ${singleQuoted(`$(${n}${r})`)} x`,
  (n, r) => `printf 'a\\n' > l; mapfile -C ${singleQuoted(`${n}${r} #`)} -c 1 a < l`,
  (n, r) => `x[$(${n}${r})]=1`,
  (n, r) => `echo | sed ${singleQuoted(`1e ${n}${r}`)}`,
  (n, r) => `echo ${singleQuoted(`${n}${r}`)} | sed 's/^/ /e'`,
  (n, r) => `ed -s <<< ${singleQuoted(`!${n}${r}`)}`,
  (n, r) => `find . -maxdepth 0 -exec ${n}${r} \\;`,
  (n, r) => `make -s -f /dev/stdin <<'MK'\nall:\n\t${n}${r}\nMK`,
  (n, r) => `sqlite3 :memory: ${singleQuoted(`.shell ${n}${r}`)}`,
  (n, r) => `capsh -- -c ${singleQuoted(`${n}${r}`)}`,
  (n, r) => `echo ${n} | xargs -I% env %${r}`,
  (n, _r) => `echo ${n} | xargs timeout 5`,
  (n, r) => `cp /usr/bin/${n} ./prog && ./prog${r}`,
  // a command name computed at run time from values the walk does not follow
  (n, r) => `for c in true ${n}; do $c${r}; done`,
  (n, r) => `read -r c <<< ${n}; $c${r}`,
  (n, r) => `c=${n.slice(0, 1)}; c+=${n.slice(1)}; $c${r}`,
  (n, r) => `set -- ${n}; "$@"${r}`,
  // programs that run programs, where installed: less's input preprocessor, tmux, mysql, psql
  (n, r) => `printf 'a\\n' > f; LESSOPEN=${singleQuoted(`|${n}${r} %s`)} less f`,
  (n, r) =>
    `SHELL=/bin/sh tmux -f /dev/null -L t new-session -d ${singleQuoted(`${n}${r}; tmux -L t wait-for -S d`)} \\; wait-for d`,
  (n, r) => `mysql -e ${singleQuoted(`system ${n}${r}`)}`,
  (n, r) => `psql -c ${singleQuoted(`\\! ${n}${r}`)}`,
];
