import type { SimpleCommand } from "../shell/index.js";
import { type Field, literalField } from "../shell/index.js";
import { SHELL_PROGRAMS } from "./programs.js";

/** One program run, after wrappers (`sudo`, `env`, `xargs`, `find -exec`, ...) are seen through. */
export interface Invocation {
  /** Program name: basename, lower-cased, folded (`/usr/bin/RM` → `rm`). */
  name: string;
  nameField: Field;
  args: Field[];
  /** Operands added at run time: items `xargs` reads, paths `find -exec ... {}` substitutes. */
  implicitOperands: Field[];
  /** Wrappers this invocation was reached through, outermost first. */
  via: string[];
  /** The simple command it came from (redirects, pipeline, here-documents). */
  source: SimpleCommand;
}

/** A script handed to a shell (`sh -c`, `su -c`, `ssh host cmd`, `eval`, `watch`, ...). */
export interface NestedScript {
  text: string;
  /** True when the script's text is not fully known (`sh -c "$X"`). */
  dynamic: boolean;
  via: string[];
}

/** Result of unwrapping one simple command. */
export interface Unwrapped {
  invocations: Invocation[];
  scripts: NestedScript[];
  /** The words left when the wrapper limit was reached (too complex: see past-limits). */
  unwrapped?: Field[];
  /**
   * Why a program the command runs is not known: one named by the input (`xargs -I% timeout 1 %`,
   * `xargs nohup`, `find -exec {} \;`), or a shell that runs what it reads (`sudo -s`).
   */
  unknown: string[];
}

interface OptionSpec {
  /** Short options that take a value (`u` for `-u root`). */
  short?: string;
  /** Long options that take a value (`user` for `--user root`). */
  long?: readonly string[];
}

/** Index of the first operand after options; `--` ends options. */
export function skipOptions(args: readonly Field[], start: number, spec: OptionSpec): number {
  let i = start;
  while (i < args.length) {
    const text = (args[i] as Field).text;
    if (text === "--") return i + 1;
    if (!text.startsWith("-") || text === "-") return i;
    if (text.startsWith("--")) {
      const name = text.slice(2).split("=")[0] ?? "";
      i += !text.includes("=") && spec.long?.includes(name) ? 2 : 1;
      continue;
    }
    let consumed = 1;
    for (let j = 1; j < text.length; j++) {
      if (spec.short?.includes(text[j] as string)) {
        if (j === text.length - 1) consumed = 2;
        break;
      }
    }
    i += consumed;
  }
  return i;
}

/** Index of the first word at or after `i` that is not a `NAME=value` assignment. */
function skipAssignments(args: readonly Field[], i: number): number {
  let k = i;
  while (k < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test((args[k] as Field).text)) k++;
  return k;
}

/** Program name of a command word: basename, lower-cased (case-insensitive file systems exist). */
export function programName(field: Field): string {
  const text = field.text;
  const slash = text.lastIndexOf("/");
  return (slash === -1 ? text : text.slice(slash + 1)).toLowerCase();
}

const SIMPLE_PREFIX = new Set([
  "!",
  "nohup",
  "builtin",
  "unbuffer",
  "catchsegv",
  "chronic",
  "caffeinate",
  "coproc",
  "fakeroot",
  "proxychains",
  "proxychains4",
  "torsocks",
  "tsocks",
  "firejail",
  "dbus-launch",
  "systemd-run",
]);

interface Step {
  /** Index in args where the wrapped command starts, or -1 when this is not a wrapper. */
  next: number;
  script?: { text: string; dynamic: boolean };
  implicit?: "xargs";
  /** A program the wrapper runs with the words from `next` as its arguments (capsh runs bash). */
  prepend?: string;
  /** The wrapper starts a shell that runs what it reads when no command follows (`sudo -s`). */
  shellWithoutCommand?: boolean;
}

function joinFields(fields: readonly Field[]): { text: string; dynamic: boolean } {
  return { text: fields.map((f) => f.text).join(" "), dynamic: fields.some((f) => f.dynamic) };
}

function shellStep(args: Field[]): Step {
  // `bash -lc 'script'`, `sh -e -c 'script' name args`: a `c` in any short-option cluster.
  let hasC = false;
  let i = 0;
  for (; i < args.length; i++) {
    const text = (args[i] as Field).text;
    if (text === "--" || !text.startsWith("-") || text === "-") break;
    if (/^-[a-z]*c[a-z]*$/i.test(text)) hasC = true;
    if (
      text === "-o" ||
      text === "+o" ||
      text === "-O" ||
      text === "+O" ||
      text === "--rcfile" ||
      text === "--init-file"
    )
      i++;
  }
  if (textAt(args, i) === "--") i++;
  const script = args[i];
  if (hasC && script) return { next: -1, script: { text: script.text, dynamic: script.dynamic } };
  return { next: -1 };
}

function textAt(args: readonly Field[], i: number): string | undefined {
  return args[i]?.text;
}

function wrapperStep(name: string, args: Field[]): Step {
  switch (name) {
    case "sudo":
    case "sudoedit":
      // `sudo FOO=1 cmd`: sudo sets the environment variables before the command, as env does.
      return {
        shellWithoutCommand: args.some((a) => /^(-[A-Za-z]*[si][A-Za-z]*|--shell|--login)$/.test(a.text)),
        next: skipAssignments(
          args,
          skipOptions(args, 0, {
            short: "ugCDhprtTU",
            long: [
              "user",
              "group",
              "close-from",
              "chdir",
              "host",
              "prompt",
              "role",
              "type",
              "command-timeout",
              "other-user",
            ],
          }),
        ),
      };
    case "doas":
      return {
        shellWithoutCommand: args.some((a) => /^-[A-Za-z]*s/.test(a.text)),
        next: skipOptions(args, 0, { short: "uC" }),
      };
    case "capsh": {
      // `capsh [--shell=PROG] -- ARGS`: the words after `--` are arguments of bash (or PROG).
      const dashDash = args.findIndex((a) => a.text === "--");
      const shell = args.find((a) => a.text.startsWith("--shell="))?.text.slice(8);
      return dashDash >= 0 ? { next: dashDash + 1, prepend: shell || "bash" } : { next: -1 };
    }
    case "pkexec":
    case "run0":
      return { next: skipOptions(args, 0, { short: "u", long: ["user"] }) };
    case "env": {
      let i = 0;
      for (; i < args.length; i++) {
        const t = (args[i] as Field).text;
        if (t === "-S" || t.startsWith("--split-string")) {
          const value = t.includes("=") ? literalField(t.slice(t.indexOf("=") + 1)) : args[i + 1];
          const rest = t.includes("=") ? args.slice(i + 1) : args.slice(i + 2);
          if (value) return { next: -1, script: joinFields([value, ...rest]) };
        }
        if (t.startsWith("-S") && t.length > 2)
          return { next: -1, script: joinFields([literalField(t.slice(2)), ...args.slice(i + 1)]) };
        if (t === "--") continue;
        if (t === "-u" || t === "-C" || t === "--unset" || t === "--chdir") {
          i++;
          continue;
        }
        if (t.startsWith("-") && t !== "-") continue;
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) continue;
        break;
      }
      return { next: i };
    }
    case "command":
    case "exec": {
      const next = skipOptions(args, 0, { short: name === "exec" ? "a" : "" });
      const lookupOnly = name === "command" && args.slice(0, next).some((a) => /^-[pvV]*[vV]/.test(a.text));
      return { next: lookupOnly ? -1 : next };
    }
    case "nice":
      return { next: skipOptions(args, 0, { short: "n", long: ["adjustment"] }) };
    case "time":
      return { next: skipOptions(args, 0, { short: "fo", long: ["format", "output"] }) };
    case "timeout": {
      const i = skipOptions(args, 0, { short: "sk", long: ["signal", "kill-after"] });
      return { next: i + 1 };
    }
    case "stdbuf":
      return { next: skipOptions(args, 0, { short: "ioe", long: ["input", "output", "error"] }) };
    case "ionice":
      return {
        next: skipOptions(args, 0, { short: "cnp", long: ["class", "classdata", "pid", "pgid", "uid"] }),
      };
    case "setsid":
    case "setpriv":
      return { next: skipOptions(args, 0, {}) };
    case "chrt":
    case "taskset": {
      // The first operand is the priority or CPU mask; the command follows it.
      return { next: skipOptions(args, 0, {}) + 1 };
    }
    case "chroot": {
      const i = skipOptions(args, 0, { long: ["userspec", "groups"] });
      return { next: i + 1 };
    }
    case "flock": {
      const i = skipOptions(args, 0, { short: "wEc", long: ["timeout", "conflict-exit-code", "command"] });
      const c = args.findIndex((a) => a.text === "-c" || a.text === "--command");
      const script = c >= 0 ? args[c + 1] : undefined;
      if (script) return { next: -1, script: { text: script.text, dynamic: script.dynamic } };
      return { next: i + 1 };
    }
    case "xargs":
      return {
        next: skipOptions(args, 0, {
          short: "adEILnPs",
          long: [
            "arg-file",
            "delimiter",
            "eof",
            "replace",
            "max-lines",
            "max-args",
            "max-procs",
            "max-chars",
            "process-slot-var",
          ],
        }),
        implicit: "xargs",
      };
    case "busybox":
    case "toybox":
      return { next: 0 };
    case "su":
    case "runuser":
    case "sg": {
      const c = args.findIndex(
        (a) => a.text === "-c" || a.text === "--command" || a.text.startsWith("--command="),
      );
      if (c >= 0) {
        const t = (args[c] as Field).text;
        const script = t.includes("=") ? literalField(t.slice(t.indexOf("=") + 1)) : args[c + 1];
        if (script) return { next: -1, script: { text: script.text, dynamic: script.dynamic } };
      }
      const dashDash = args.findIndex((a) => a.text === "--");
      if (name === "runuser" && dashDash >= 0) return { next: dashDash + 1 };
      // `su`, `su - bob`: a login shell that runs whatever it reads.
      return { next: -1, shellWithoutCommand: name !== "sg" };
    }
    case "eval":
      return { next: -1, script: joinFields(args) };
    case "watch": {
      const i = skipOptions(args, 0, { short: "dnq", long: ["differences", "interval", "equexit"] });
      return args.length > i ? { next: -1, script: joinFields(args.slice(i)) } : { next: -1 };
    }
    case "script": {
      const c = args.findIndex((a) => /^-[a-zA-Z]*c$/.test(a.text) || a.text === "--command");
      const script = c >= 0 ? args[c + 1] : undefined;
      return script ? { next: -1, script: { text: script.text, dynamic: script.dynamic } } : { next: -1 };
    }
    case "ssh": {
      const i = skipOptions(args, 0, { short: "BbcDEeFIiJLlmOoPpQRSWw" });
      return args.length > i + 1 ? { next: -1, script: joinFields(args.slice(i + 1)) } : { next: -1 };
    }
    case "trap":
      return args[0] ? { next: -1, script: { text: args[0].text, dynamic: args[0].dynamic } } : { next: -1 };
    default:
      if (SIMPLE_PREFIX.has(name)) return { next: skipOptions(args, 0, {}) };
      if (SHELL_PROGRAMS.has(name)) return shellStep(args);
      return { next: -1 };
  }
}

/** The start paths of a `find` command line: after its leading options (-H -L -P -D x -O1), before the expression. */
export function findStartPaths(args: readonly Field[]): Field[] {
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test((args[i] as Field).text))
    i += (args[i] as Field).text === "-D" ? 2 : 1;
  const paths: Field[] = [];
  for (; i < args.length; i++) {
    const a = args[i] as Field;
    if (a.text.startsWith("-") || a.text === "(" || a.text === "!") break;
    paths.push(a);
  }
  return paths;
}

function upstreamOperands(cmd: SimpleCommand): Field[] {
  const out: Field[] = [];
  for (const up of cmd.upstream) {
    for (const a of up.argv.slice(1)) {
      if (a.text.startsWith("-")) continue;
      // `printf "/\n"` prints lines; each is an item xargs reads.
      for (const part of a.text.split(/\s+|\\n/)) if (part !== "") out.push({ ...a, text: part });
    }
    for (const line of up.stdinText) for (const w of line.split(/\s+/)) if (w) out.push(literalField(w));
  }
  for (const line of cmd.stdinText) for (const w of line.split(/\s+/)) if (w) out.push(literalField(w));
  return out;
}

const MAX_UNWRAP = 12;

/**
 * Sees through wrappers: returns every program the command runs (the wrappers included, so a rule
 * may match either), and every script it hands to a shell, for the guard to parse in turn.
 */
export function unwrapCommand(cmd: SimpleCommand): Unwrapped {
  const invocations: Invocation[] = [];
  const scripts: NestedScript[] = [];
  const unknown: string[] = [];
  const queue: Array<{ argv: Field[]; implicit: Field[]; via: string[] }> = [
    { argv: cmd.argv, implicit: [], via: [] },
  ];
  let steps = 0;
  let unwrapped: Field[] | undefined;
  while (queue.length > 0) {
    const item = queue.shift() as { argv: Field[]; implicit: Field[]; via: string[] };
    if (steps++ >= MAX_UNWRAP * 4) {
      unwrapped = [...(unwrapped ?? []), ...item.argv];
      continue;
    }
    let { argv, implicit } = item;
    let replace: string | undefined;
    const via = [...item.via];
    for (let level = 0; argv.length > 0; level++) {
      // Past the limit the rest is not followed: the guard reads it as too complex.
      if (level >= MAX_UNWRAP) {
        unwrapped = [...(unwrapped ?? []), ...argv];
        break;
      }
      const nameField = argv[0] as Field;
      const name = programName(nameField);
      const args = argv.slice(1);
      invocations.push({ name, nameField, args, implicitOperands: implicit, via: [...via], source: cmd });
      // `xargs -I% timeout 1 %`: the program is a word of the input.
      if (via.includes("xargs") && replace !== undefined && nameField.text.includes(replace))
        unknown.push(`xargs runs a program named by its input (${nameField.text})`);
      if (name === "find") {
        const found = findStartPaths(args);
        const starts = found.length > 0 ? found : [literalField(".")];
        for (let i = 0; i < args.length; i++) {
          const t = (args[i] as Field).text;
          if (t !== "-exec" && t !== "-execdir" && t !== "-ok" && t !== "-okdir") continue;
          let end = i + 1;
          while (end < args.length && !/^[;+]$/.test((args[end] as Field).text)) end++;
          const inner = args.slice(i + 1, end);
          if (programIsFoundPath(inner)) unknown.push(`find ${t} runs a program named by the paths it finds`);
          const sub = inner.some((a) => a.text.includes("{}")) ? starts : [];
          queue.push({ argv: inner.filter((a) => a.text !== "{}"), implicit: sub, via: [...via, "find"] });
          i = end;
        }
        break;
      }
      const step = wrapperStep(name, args);
      if (step.script) scripts.push({ ...step.script, via: [...via, name] });
      const noCommand = step.next >= args.length || (step.next < 0 && !step.script);
      if (noCommand && step.shellWithoutCommand)
        unknown.push(`${name} starts a shell that runs whatever it reads, which is not known here`);
      // `xargs nohup`, `xargs env`, `xargs sh`: the program (or script) is a word of the input.
      if (
        noCommand &&
        via.includes("xargs") &&
        (step.next >= 0 || (SHELL_PROGRAMS.has(name) && args.every((a) => a.text.startsWith("-")))) &&
        name !== "xargs"
      )
        unknown.push(`xargs runs ${name} with a program named by its input`);
      if (step.prepend !== undefined) {
        via.push(name);
        argv = [literalField(step.prepend), ...args.slice(Math.max(step.next, 0))];
        continue;
      }
      if (step.next < 0 || step.next >= args.length) break;
      if (step.implicit === "xargs") {
        implicit = [...implicit, ...upstreamOperands(cmd)];
        replace = xargsReplace(args.slice(0, step.next)) ?? replace;
      }
      via.push(name);
      argv = args.slice(step.next);
    }
  }
  return unwrapped === undefined
    ? { invocations, scripts, unknown }
    : { invocations, scripts, unknown, unwrapped };
}

/** `find -exec {} ;`, `-exec env {} ;`, `-exec timeout 1 {} ;`: the program, past wrappers, is a found path. */
function programIsFoundPath(inner: readonly Field[]): boolean {
  let argv = inner;
  for (let level = 0; level < MAX_UNWRAP && argv.length > 0; level++) {
    const first = argv[0] as Field;
    if (first.text.includes("{}")) return true;
    const step = wrapperStep(programName(first), argv.slice(1));
    if (step.next < 0 || step.next >= argv.length - 1) return false;
    argv = argv.slice(1 + step.next);
  }
  return false;
}

/** The replace string of xargs options (`-I R`, `-IR`, `-i[R]`, `--replace[=R]`), if any. */
function xargsReplace(options: readonly Field[]): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const t = (options[i] as Field).text;
    if (t === "-I") out = options[i + 1]?.text;
    else if (t.startsWith("-I")) out = t.slice(2);
    else if (t === "-i" || t === "--replace") out = "{}";
    else if (t.startsWith("-i")) out = t.slice(2);
    else if (t.startsWith("--replace=")) out = t.slice(10);
  }
  return out === "" ? undefined : out;
}
