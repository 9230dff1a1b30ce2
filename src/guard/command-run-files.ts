import type { CommandAnalysis } from "./command-guard.js";
import { normaliseTarget } from "./paths/index.js";
import type { Field } from "./shell/index.js";
import { type Invocation, SHELL_PROGRAMS, unwrapCommand } from "./unwrap/index.js";

/** A file a command runs from its working directory: a script, a program, a Makefile, a package.json. */
export interface RunFile {
  /** As bash would see it from the command's start directory: relative, absolute or `~`-based. */
  readonly path: string;
  /** How the command runs it (`bash x.sh`, `./x`, `make`, `npm run build`). */
  readonly via: string;
}

/** Interpreters that run a file named by their first operand, with the options that take a value. */
const FILE_INTERPRETERS: readonly {
  name: RegExp;
  valued: ReadonlySet<string>;
  inline: ReadonlySet<string>;
}[] = [
  {
    name: /^python[\d.]*$|^pypy[\d.]*$/,
    valued: new Set(["-W", "-X", "--check-hash-based-pycs"]),
    inline: new Set(["-c", "-m"]),
  },
  {
    name: /^(node|nodejs|bun|deno)$/,
    valued: new Set(["-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file"]),
    inline: new Set(["-e", "--eval", "-p", "--print"]),
  },
  { name: /^perl[\d.]*$/, valued: new Set(["-I", "-M", "-m"]), inline: new Set(["-e", "-E"]) },
  { name: /^ruby[\d.]*$/, valued: new Set(["-I", "-r"]), inline: new Set(["-e"]) },
  { name: /^php[\d.]*$/, valued: new Set(["-d", "-c"]), inline: new Set(["-r"]) },
];

/** `npm`/`pnpm`/`yarn` sub-commands that run a script of package.json. */
const PACKAGE_SCRIPT_COMMANDS = new Set([
  "run",
  "run-script",
  "rum",
  "urn",
  "test",
  "t",
  "tst",
  "start",
  "stop",
  "restart",
]);

const MAKE_FILES = ["GNUmakefile", "makefile", "Makefile"] as const;

/** The index of the first operand, skipping options (and the values of `valued` ones); -1 when an inline script option comes first. */
function firstOperand(
  args: readonly Field[],
  valued: ReadonlySet<string>,
  inline: ReadonlySet<string>,
): number {
  for (let i = 0; i < args.length; i++) {
    const text = (args[i] as Field).text;
    if (text === "--") return i + 1 < args.length ? i + 1 : -1;
    if (!text.startsWith("-") || text === "-") return text === "-" ? -1 : i;
    const flag = text.includes("=") ? text.slice(0, text.indexOf("=")) : text;
    if (
      inline.has(flag) ||
      [...inline].some((o) => o.length === 2 && !text.startsWith("--") && text.startsWith(o))
    ) {
      return -1;
    }
    if (valued.has(flag) && !text.includes("=")) i++;
  }
  return -1;
}

/** A shell's script operand: none with `-c` (or `-s`, stdin) anywhere among its options. */
function shellScript(args: readonly Field[]): number {
  for (let i = 0; i < args.length; i++) {
    const text = (args[i] as Field).text;
    if (text === "--") return i + 1 < args.length ? i + 1 : -1;
    if (["-o", "+o", "-O", "+O", "--rcfile", "--init-file"].includes(text)) {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(text)) {
      if (/^-[a-zA-Z]*[cs]/.test(text)) return -1;
      continue;
    }
    if (text.startsWith("--")) continue;
    return i;
  }
  return -1;
}

function dirJoin(dir: string | undefined, name: string): string {
  return dir === undefined || dir === "." ? name : `${dir.replace(/\/+$/, "")}/${name}`;
}

/** What one invocation runs from a file, as words relative to its own directory. */
function filesOf(inv: Invocation): { words: string[]; via: string } | null {
  const { name, args, nameField } = inv;
  const text = (f: Field | undefined) => (f === undefined || f.dynamic || f.glob ? undefined : f.text);
  if (nameField.text.includes("/")) {
    const program = text(nameField);
    return program === undefined ? null : { words: [program], via: program };
  }
  if (SHELL_PROGRAMS.has(name) || name === "source" || name === ".") {
    const at = name === "source" || name === "." ? (args.length > 0 ? 0 : -1) : shellScript(args);
    const file = at >= 0 ? text(args[at]) : undefined;
    return file === undefined ? null : { words: [file], via: `${name} ${file}` };
  }
  for (const interpreter of FILE_INTERPRETERS) {
    if (!interpreter.name.test(name)) continue;
    const at = firstOperand(args, interpreter.valued, interpreter.inline);
    const file = at >= 0 ? text(args[at]) : undefined;
    // `deno run x.ts`, `bun run x.js`: the file follows the sub-command.
    if ((name === "deno" || name === "bun") && file === "run") {
      const next = text(args[at + 1]);
      return next === undefined ? null : { words: [next], via: `${name} run ${next}` };
    }
    return file === undefined ? null : { words: [file], via: `${name} ${file}` };
  }
  if (name === "make" || name === "gmake") {
    let dir: string | undefined;
    const files: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const t = (args[i] as Field).text;
      const value = (long: string, short: string): string | undefined => {
        if (t === short || t === `--${long}`) return text(args[++i]);
        if (t.startsWith(`--${long}=`)) return t.slice(long.length + 3);
        if (t.startsWith(short) && t.length > 2) return t.slice(2);
        return undefined;
      };
      const f = value("file", "-f") ?? value("makefile", "-f");
      if (f !== undefined) files.push(f);
      const d = value("directory", "-C");
      if (d !== undefined) dir = dirJoin(dir, d);
    }
    const chosen = files.length > 0 ? files : [...MAKE_FILES];
    return { words: chosen.map((f) => (f.startsWith("/") ? f : dirJoin(dir, f))), via: "make" };
  }
  if (name === "npm" || name === "pnpm" || name === "yarn") {
    let prefix: string | undefined;
    let sub: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const t = (args[i] as Field).text;
      if (t === "--prefix" || t === "-C" || t === "--dir") prefix = text(args[++i]);
      else if (t.startsWith("--prefix=")) prefix = t.slice(9);
      else if (!t.startsWith("-")) {
        sub = t;
        break;
      }
    }
    // yarn runs a script named as its sub-command too (`yarn build`); npm and pnpm only through run & co.
    const runs =
      sub !== undefined &&
      (PACKAGE_SCRIPT_COMMANDS.has(sub) || (name === "yarn" && sub !== "add" && sub !== "install"));
    return runs ? { words: [dirJoin(prefix, "package.json")], via: `${name} ${sub}` } : null;
  }
  return null;
}

/**
 * The files of the workspace a command runs (what was approved is what runs):
 * the script handed to a shell (`sh x.sh`, `bash -e x.sh`, `. x.sh`), a program named by a path
 * (`./x`, `tools/run`), the file an interpreter runs (`python3 x.py`, `node x.js`, `perl`, `ruby`,
 * `php`, `deno run`), the Makefile `make` reads (`-f`, `-C`, else GNUmakefile, makefile, Makefile)
 * and the package.json whose script `npm run`, `npm test`, `pnpm run` or `yarn <script>` runs —
 * wrappers seen through (`env`, `sudo`, `timeout`, ...), `cd` earlier in the script followed. Paths
 * are normalised as bash sees them from the start directory; a word with an unknown part (`$X`,
 * a glob) is not a file one can name, and is left out (the guard judges such commands). Pure.
 */
export function commandRunFiles(analysis: CommandAnalysis): RunFile[] {
  const out = new Map<string, RunFile>();
  for (const cmd of analysis.commands) {
    for (const inv of unwrapCommand(cmd).invocations) {
      const found = filesOf(inv);
      if (found === null) continue;
      for (const word of found.words) {
        const field: Field = { text: word, bare: word, dynamic: false, glob: false };
        for (const cwd of [cmd.cwd, ...(cmd.otherCwds ?? [])]) {
          const path = normaliseTarget(field, cwd);
          if (path !== "" && !out.has(path)) out.set(path, { path, via: found.via });
        }
      }
    }
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
