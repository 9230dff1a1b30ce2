import { posix } from "node:path";
import type { Node } from "web-tree-sitter";
import { expandWord, type Field, type WordContext } from "./shell-words.js";
import { substitutionSpans } from "./substitution-spans.js";

/** One `NAME=value` in front of a command. */
export interface Assignment {
  name: string;
  value: Field;
}

/** A redirection: operator, file descriptor and target fields. */
export interface Redirect {
  /** The operator as written: `>`, `>>`, `&>`, `>|`, `<`, `<>`, `>&`, ... */
  op: string;
  fd: string | undefined;
  target: Field[];
  /** Commands inside process substitutions in the target (`< <(curl x)`). */
  inner: SimpleCommand[];
}

/** One simple command as bash would run it, before wrappers are unwrapped. */
export interface SimpleCommand {
  /** Name and arguments after expansion. Empty for a bare redirection (`> /dev/sda`). */
  argv: Field[];
  /** For each argv entry, the commands inside substitutions in that word (`$(curl x)`, `<(...)`). */
  argInner: SimpleCommand[][];
  /** `NAME=value` assignments in front of the command (its environment). */
  assignments: Assignment[];
  redirects: Redirect[];
  /** Text fed on standard input by here-documents and here-strings. */
  stdinText: string[];
  /** Commands inside substitutions in those here-documents and here-strings. */
  stdinInner: SimpleCommand[];
  /** Commands in earlier stages of the same pipeline (they feed this command's stdin). */
  upstream: SimpleCommand[];
  /**
   * Working directory set by an earlier literal `cd` (absolute, `~`-based, or relative to the
   * directory the script started in), or undefined for that start directory or when unknown.
   * It assumes every `cd` succeeded; see {@link SimpleCommand.otherCwds}.
   */
  cwd: string | undefined;
  /**
   * The other directories the command may run in: a `cd` that failed (`cd x; cmd`) or ran in a
   * subshell (`(cd x); cmd`) leaves the shell where it was. Only `cd x && cmd` rules that out.
   */
  otherCwds?: readonly (string | undefined)[];
  /** True once a `cd` to an unknown directory ran: a relative `cd` after it is not followed. */
  cwdUnknown?: boolean;
}

/** Where a script starts: the directories of the command that hands it to a shell. */
export interface StartDirectory {
  cwd: string | undefined;
  otherCwds?: readonly (string | undefined)[];
  cwdUnknown?: boolean;
}

/** The start directory of a script a command runs (`sh -c`, `eval`, ...). */
export function startDirectoryOf(cmd: SimpleCommand): StartDirectory {
  return { cwd: cmd.cwd, otherCwds: cmd.otherCwds ?? [], cwdUnknown: cmd.cwdUnknown ?? false };
}

/** A shell function definition and whether its body calls itself in a pipe or in the background. */
export interface FunctionDefinition {
  name: string;
  forkBomb: boolean;
}

/** Everything the walk found in one script. */
export interface WalkResult {
  commands: SimpleCommand[];
  functions: FunctionDefinition[];
  tooComplex: boolean;
  /** The parser split a word at a lone `$` (see {@link WordContext.strayDollar}). */
  strayDollar: boolean;
  /** Substitutions in here-document bodies the parser did not see; the guard analyses them. */
  embeddedScripts: string[];
  /** Assignments that stand alone (`X=1`, `export X=1`): they set the environment of later commands. */
  assignments: Assignment[];
  /** `declare` / `typeset` / `local` / `export` / `readonly` with their option words (`-n`, `-gx`). */
  declarations: Array<{ keyword: string; options: string[] }>;
}

interface Frame {
  upstream: SimpleCommand[];
  fn: string | undefined;
  /** Inside a pipeline stage or a backgrounded statement (what makes self-recursion a fork bomb). */
  spawning: boolean;
  depth: number;
}

const MAX_DEPTH = 150;
/**
 * Directories kept as {@link SimpleCommand.otherCwds}; past it `/` is one of them, so every
 * relative path may be read as absolute (the fence then errs towards "outside").
 */
const MAX_OTHER_CWDS = 16;
const CD_PROGRAMS = new Set(["cd", "pushd"]);
/** Syntax nodes walked before the guard stops and asks: bounds the time one check can take. */
const MAX_NODES = 20_000;
const REDIRECT_TYPES = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
const LITERAL_VALUE_TYPES = new Set([
  "word",
  "raw_string",
  "string",
  "number",
  "concatenation",
  "ansi_c_string",
]);

/**
 * Commands a pipeline stage keeps as its upstream: the first few (where a download usually
 * starts) and the most recent ones. Copying the whole list at every stage made a pipeline of n
 * stages cost n² (a 98 KB pipeline took 20 s and 2.8 GB); bounded, each stage costs the same.
 */
const UPSTREAM_HEAD = 16;
const UPSTREAM_TAIL = 240;

function boundedUpstream(
  upstream: SimpleCommand[],
  commands: readonly SimpleCommand[],
  from: number,
): SimpleCommand[] {
  const added = commands.length - from;
  if (added === 0) return upstream;
  const all = upstream.length + added;
  if (all <= UPSTREAM_HEAD + UPSTREAM_TAIL) return [...upstream, ...commands.slice(from)];
  const head = upstream.slice(0, UPSTREAM_HEAD);
  const tail = [...upstream.slice(UPSTREAM_HEAD), ...commands.slice(from)].slice(-UPSTREAM_TAIL);
  return [...head, ...tail];
}

class Walker {
  readonly commands: SimpleCommand[] = [];
  readonly functions: FunctionDefinition[] = [];
  readonly embeddedScripts: string[] = [];
  readonly shellAssignments: Assignment[] = [];
  readonly declarations: WalkResult["declarations"] = [];
  readonly words: WordContext;
  cwd: string | undefined;
  otherCwds: (string | undefined)[];
  cwdUnknown: boolean;
  /** Set while the left side of `cd x && …` is walked: that `cd` failing runs nothing after it. */
  private guardedCd = false;
  /** The directories the shell stays in when a guarded `cd` fails (back after the `&&` list). */
  private cdFailures: (string | undefined)[] | undefined;
  selfCalls = 0;
  private visited = 0;

  constructor(vars: Map<string, string>, start: StartDirectory) {
    this.words = { vars, tooComplex: false, strayDollar: false };
    this.cwd = start.cwd;
    this.otherCwds = [...(start.otherCwds ?? [])];
    this.cwdUnknown = start.cwdUnknown ?? false;
  }

  walk(node: Node, frame: Frame): void {
    if (frame.depth > MAX_DEPTH || ++this.visited > MAX_NODES) {
      this.words.tooComplex = true;
      return;
    }
    switch (node.type) {
      case "command":
        this.command(node, [], frame);
        return;
      case "redirected_statement":
        this.redirected(node, frame);
        return;
      case "pipeline":
        this.pipeline(node, frame);
        return;
      case "function_definition":
        this.functionDefinition(node, frame);
        return;
      case "command_substitution":
      case "process_substitution":
        // Inside backquotes bash first removes the `\` before `\`, `` ` `` and `$`, then parses
        // what is left: `` `\\rm -rf /` `` runs `\rm`, and a nested `` \`…\` `` is a substitution.
        // tree-sitter parses the text as written, so the unescaped text is analysed as well.
        if (node.text.startsWith("`") && node.text.includes("\\"))
          this.embeddedScripts.push(...substitutionSpans(node.text));
        this.children(node, { upstream: [], fn: frame.fn, spawning: false, depth: frame.depth + 1 });
        return;
      case "variable_assignment":
        this.assignment(node, frame);
        return;
      case "list":
        this.list(node, frame);
        return;
      case "declaration_command": {
        // Not a command node to tree-sitter; its options (`declare -n`) matter to shell-state.
        const words = node.children.filter((k) => k?.type === "word").map((k) => k?.text ?? "");
        this.declarations.push({
          keyword: node.child(0)?.text ?? "",
          options: words.filter((w, i) => /^[-+]/.test(w) && !words.slice(0, i).includes("--")),
        });
        this.children(node, frame);
        return;
      }
      case "comment":
        return;
      default:
        if (REDIRECT_TYPES.has(node.type)) {
          this.bareRedirects([node], frame);
          return;
        }
        this.children(node, frame);
    }
  }

  /** `a && b`, `a || b`: `cd x && cmd` runs `cmd` only where the `cd` succeeded. */
  private list(node: Node, frame: Frame): void {
    const kids = node.children;
    const left = kids[0];
    const guarded =
      kids.length === 3 &&
      kids[1]?.type === "&&" &&
      left?.type === "command" &&
      CD_PROGRAMS.has(left.childForFieldName("name")?.text ?? "");
    if (!guarded) {
      this.children(node, frame);
      return;
    }
    const next = { ...frame, depth: frame.depth + 1 };
    const savedFailures = this.cdFailures;
    this.guardedCd = true;
    this.walk(left as Node, next);
    this.guardedCd = false;
    const failures = this.cdFailures ?? [];
    this.cdFailures = savedFailures;
    const right = kids[2];
    if (right && right.childCount > 0 && !this.words.tooComplex) this.walk(right, next);
    // After the list the shell may be where it was before a failed `cd`.
    this.setOtherCwds([...this.otherCwds, ...failures]);
  }

  private setOtherCwds(dirs: (string | undefined)[]): void {
    const unique = [...new Set(dirs)].filter((d) => d !== this.cwd);
    this.otherCwds = unique.length > MAX_OTHER_CWDS ? [...unique.slice(0, MAX_OTHER_CWDS), "/"] : unique;
  }

  private children(node: Node, frame: Frame): void {
    const next = { ...frame, depth: frame.depth + 1 };
    // One array of children (`node.child(i)` walks the siblings from the first: quadratic), and
    // no child more once the walk has stopped at its node limit.
    const kids = node.children;
    for (let i = 0; i < kids.length && !this.words.tooComplex; i++) {
      const child = kids[i];
      if (!child || child.childCount === 0) continue;
      const background = kids[i + 1]?.type === "&";
      this.walk(child, background ? { ...next, spawning: true } : next);
    }
  }

  /** Walks the substitutions inside a word and returns the commands they run. */
  private inner(node: Node, frame: Frame): SimpleCommand[] {
    if (node.childCount === 0) return [];
    const before = this.commands.length;
    this.walk(node, { upstream: [], fn: frame.fn, spawning: false, depth: frame.depth + 1 });
    return this.commands.slice(before);
  }

  private expand(node: Node): Field[] {
    return expandWord(node, this.words);
  }

  /** A command with nothing read yet, in the frame's pipeline and the walk's working directory. */
  private emptyCommand(frame: Frame): SimpleCommand {
    return {
      argv: [],
      argInner: [],
      assignments: [],
      redirects: [],
      stdinText: [],
      stdinInner: [],
      upstream: frame.upstream,
      ...this.directories(),
    };
  }

  private command(node: Node, outer: Node[], frame: Frame): SimpleCommand {
    const cmd = this.emptyCommand(frame);
    const redirectNodes: Node[] = [];
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const child = kids[i];
      if (!child) continue;
      const field = node.fieldNameForChild(i);
      if (field === "name" || field === "argument") {
        const word = field === "name" ? (child.namedChild(0) ?? child) : child;
        // `$"..."` sometimes parses as a lone `$` before a string; bash drops that `$`.
        if (word.type === "$" && kids[i + 1]?.startIndex === word.endIndex) {
          if (kids[i + 1]?.type !== "string") this.words.strayDollar = true;
          continue;
        }
        const inner = this.inner(word, frame);
        for (const f of this.expand(word)) {
          cmd.argv.push(f);
          cmd.argInner.push(inner);
        }
      } else if (child.type === "variable_assignment") {
        const nameNode = child.childForFieldName("name");
        // `x[$(cmd)]=1 prog`: bash expands the subscript, so the substitution runs.
        if (nameNode?.type === "subscript") this.inner(nameNode, frame);
        const name = nameNode?.text;
        const value = child.childForFieldName("value");
        if (value) this.inner(value, frame);
        if (name !== undefined) {
          const fields = value ? this.expand(value) : [];
          const text = fields.map((f) => f.text).join(" ");
          cmd.assignments.push({
            name,
            value: { text, bare: text, dynamic: fields.some((f) => f.dynamic), glob: false },
          });
        }
      } else if (REDIRECT_TYPES.has(child.type)) {
        redirectNodes.push(child);
      } else if (child.childCount > 0) {
        this.inner(child, frame);
      }
    }
    for (const r of [...redirectNodes, ...outer]) this.redirect(r, cmd, frame);
    const name = cmd.argv[0]?.text;
    if (frame.fn !== undefined && name === frame.fn && frame.spawning) this.selfCalls++;
    // `read IFS`, `printf -v IFS ,`, `unset IFS`: the splitting of later expansions is unknown.
    if (cmd.argv.some((a, i) => i > 0 && /^IFS(=|$)/.test(a.text))) this.words.ifsChanged = true;
    if (name !== undefined && CD_PROGRAMS.has(name)) {
      const guarded = this.guardedCd;
      this.guardedCd = false;
      this.changeDirectory(cmd.argv.slice(1), guarded);
    }
    this.commands.push(cmd);
    return cmd;
  }

  private redirect(node: Node, cmd: SimpleCommand, frame: Frame): void {
    if (node.type === "heredoc_redirect") {
      const kids = node.children;
      for (let i = 0; i < kids.length; i++) {
        const child = kids[i];
        if (child?.type === "heredoc_body") {
          cmd.stdinText.push(child.text);
          const inner = this.inner(child, frame);
          cmd.stdinInner.push(...inner);
          const quoted = /['"\\]/.test(node.childForFieldName("start")?.text ?? node.child(1)?.text ?? "");
          if (!quoted && inner.length === 0 && /\$\(|`/.test(child.text)) {
            this.embeddedScripts.push(...substitutionSpans(child.text));
          }
        }
      }
      return;
    }
    if (node.type === "herestring_redirect") {
      const kids = node.children;
      for (let i = 0; i < kids.length; i++) {
        const child = kids[i];
        if (!child?.isNamed) continue;
        cmd.stdinInner.push(...this.inner(child, frame));
        cmd.stdinText.push(
          this.expand(child)
            .map((f) => f.text)
            .join(" "),
        );
      }
      return;
    }
    let op = "";
    let fd: string | undefined;
    const target: Field[] = [];
    const inner: SimpleCommand[] = [];
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const child = kids[i];
      if (!child) continue;
      const field = node.fieldNameForChild(i);
      if (field === "descriptor") fd = child.text;
      else if (field === "destination") {
        inner.push(...this.inner(child, frame));
        target.push(...this.expand(child));
      } else if (!child.isNamed) op += child.type;
      else if (child.type === "ERROR") op += child.text;
    }
    cmd.redirects.push({ op, fd, target, inner });
  }

  private redirected(node: Node, frame: Frame): void {
    const body = node.childForFieldName("body");
    const redirects: Node[] = [];
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const child = kids[i];
      if (child && REDIRECT_TYPES.has(child.type)) redirects.push(child);
      else if (child && child !== body && child.childCount > 0) this.walk(child, frame);
    }
    if (body?.type === "command") {
      this.command(body, redirects, frame);
      return;
    }
    const before = this.commands.length;
    if (body) this.walk(body, { ...frame, depth: frame.depth + 1 });
    const inside = this.commands.slice(before);
    const bare = this.bareRedirects(redirects, frame);
    // Input fed to a compound statement reaches every command in it.
    for (const cmd of inside) {
      cmd.stdinText.push(...bare.stdinText);
      cmd.stdinInner.push(...bare.stdinInner);
    }
  }

  private bareRedirects(redirects: Node[], frame: Frame): SimpleCommand {
    const cmd = this.emptyCommand(frame);
    for (const r of redirects) this.redirect(r, cmd, frame);
    this.commands.push(cmd);
    return cmd;
  }

  private pipeline(node: Node, frame: Frame): void {
    let upstream = frame.upstream;
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      // Past the node limit the walk has stopped (the guard asks): no stage more is looked at.
      if (this.words.tooComplex) return;
      const stage = kids[i];
      if (!stage?.isNamed) continue;
      const before = this.commands.length;
      this.walk(stage, { upstream, fn: frame.fn, spawning: true, depth: frame.depth + 1 });
      upstream = boundedUpstream(upstream, this.commands, before);
    }
  }

  private functionDefinition(node: Node, frame: Frame): void {
    const name = node.childForFieldName("name")?.text ?? "";
    const body = node.childForFieldName("body");
    const savedCalls = this.selfCalls;
    this.selfCalls = 0;
    if (body) this.walk(body, { upstream: [], fn: name, spawning: false, depth: frame.depth + 1 });
    this.functions.push({ name, forkBomb: this.selfCalls > 0 });
    this.selfCalls = savedCalls;
  }

  private assignment(node: Node, frame: Frame): void {
    const nameNode = node.childForFieldName("name");
    // `x[$(cmd)]=1`: bash expands (and evaluates as arithmetic) the subscript first.
    if (nameNode?.type === "subscript") this.inner(nameNode, frame);
    const name = nameNode?.text;
    const value = node.childForFieldName("value");
    if (value) this.inner(value, frame);
    if (name === undefined) return;
    if (name === "IFS") this.words.ifsChanged = true;
    // `c=reb; c+=oot`: the value is appended to what the variable held, which must be known too.
    const appends = node.children.some((k) => k?.type === "+=");
    const before = appends ? this.words.vars.get(name) : "";
    {
      // Kept for the environment checks: `export LD_PRELOAD=…`, `GIT_CONFIG_KEY_0=…; export …`.
      const fields = value ? this.expand(value) : [];
      const text = (before ?? "") + fields.map((f) => f.text).join(" ");
      this.shellAssignments.push({
        name,
        value: {
          text,
          bare: text,
          dynamic: before === undefined || fields.some((f) => f.dynamic),
          glob: false,
        },
      });
    }
    if (value && before !== undefined && LITERAL_VALUE_TYPES.has(value.type)) {
      const fields = this.expand(value);
      if (fields.every((f) => !f.dynamic)) {
        this.words.vars.set(name, before + fields.map((f) => f.text).join(" "));
        return;
      }
    }
    this.words.vars.delete(name);
  }

  private directories(): Pick<SimpleCommand, "cwd" | "otherCwds" | "cwdUnknown"> {
    return {
      cwd: this.cwd,
      ...(this.otherCwds.length > 0 ? { otherCwds: this.otherCwds } : {}),
      ...(this.cwdUnknown ? { cwdUnknown: true } : {}),
    };
  }

  /**
   * Follows a literal `cd`. A relative one from the start directory is kept relative
   * (`cd .git/hooks` then `pre-commit` is `.git/hooks/pre-commit`, `../../x` is `x`); after a
   * `cd` to an unknown directory it is not followed. Where the shell was stays one of the
   * {@link SimpleCommand.otherCwds}, unless the `cd` is guarded (`cd x && cmd`): then it comes
   * back only after the list.
   */
  private changeDirectory(args: Field[], guarded: boolean): void {
    const operands = args.filter((a) => !a.text.startsWith("-") || a.text === "-");
    const target = operands[0];
    const unknown = target !== undefined && (target.dynamic || target.glob || target.text === "-");
    const before = [this.cwd, ...this.otherCwds];
    if (unknown) this.cwdUnknown = true;
    const moved = before.map((dir) =>
      this.changedDirectory(dir, unknown ? undefined : (target?.text ?? "~")),
    );
    this.cwd = moved[0];
    if (guarded) {
      this.cdFailures = [...(this.cdFailures ?? []), ...before];
      this.setOtherCwds(moved.slice(1));
    } else this.setOtherCwds([...moved.slice(1), ...before]);
  }

  /** Where `cd text` from `dir` leads; undefined for an unknown target (`text` undefined). */
  private changedDirectory(dir: string | undefined, text: string | undefined): string | undefined {
    if (text === undefined) return undefined;
    if (text.startsWith("/") || text === "~" || text.startsWith("~/")) return posix.normalize(text);
    if (dir !== undefined) return posix.normalize(posix.join(dir, text));
    return this.cwdUnknown ? undefined : posix.normalize(text);
  }
}

/**
 * Walks a parsed script and lists every simple command bash could run: in lists, pipelines,
 * subshells, compound statements, functions, command and process substitutions (also inside double
 * quotes and here-documents) and redirections.
 */
export function walkShell(
  root: Node,
  vars = new Map<string, string>(),
  start: StartDirectory = { cwd: undefined },
): WalkResult {
  const walker = new Walker(vars, start);
  walker.walk(root, { upstream: [], fn: undefined, spawning: false, depth: 0 });
  return {
    commands: walker.commands,
    functions: walker.functions,
    tooComplex: walker.words.tooComplex,
    strayDollar: walker.words.strayDollar,
    embeddedScripts: walker.embeddedScripts,
    assignments: walker.shellAssignments,
    declarations: walker.declarations,
  };
}
