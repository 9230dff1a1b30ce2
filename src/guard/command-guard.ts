import {
  DownloadTracker,
  hardInvocationFindings,
  hardRedirectFindings,
  hiddenHardFindings,
  internalAddressAssignments,
  interpreterFindings,
  redirectPatterns,
  softInvocationFindings,
  softRedirectFindings,
  tooComplexFindings,
  variantsOf,
  WrittenPrograms,
  wrappedHardFindings,
} from "./families/index.js";
import type { ShellParser } from "./shell/index.js";
import {
  type Assignment,
  BRACE_MARK,
  bashOnlyConstructs,
  hasHiddenCharacters,
  literalField,
  nestedDialect,
  posixReading,
  runtimeEvaluation,
  type ShellDialect,
  type SimpleCommand,
  type StartDirectory,
  startDirectoryOf,
  substitutionSpans,
  walkShell,
} from "./shell/index.js";
import {
  declaredAssignments,
  envCommandAssignments,
  environmentCommands,
  type InputReaders,
  type Invocation,
  inputReaders,
  optionCommands,
  programName,
  runnerCommands,
  SHELL_PROGRAMS,
  stateAssignmentUses,
  stateDeclarationUses,
  stateInvocationUses,
  unwrapCommand,
} from "./unwrap/index.js";
import {
  type CommandVerdict,
  decideCommand,
  type GuardFinding,
  hardFinding,
  softFinding,
} from "./verdict/index.js";

/** Longest command the guard parses; longer input needs approval. */
export const MAX_COMMAND_LENGTH = 100_000;
/**
 * Most `|` characters a text may hold to be parsed: tree-sitter-bash's error recovery is quadratic
 * in the pipes of a broken pipeline (49,000 of them took 20 s and 2.8 GB, 100 KB aborted the WASM
 * parser), so past this the guard asks without parsing.
 */
export const MAX_PIPES = 300;
/** Characters parsed in all for one check (every re-reading and nested script counts). */
export const PARSE_BUDGET = 4 * 100_000;
/** How deep `sh -c 'sh -c ...'` nesting is followed before the guard gives up and asks. */
export const MAX_SCRIPT_NESTING = 6;

const KEYWORD_PREFIX =
  /(^|[;&|(){\n`!]|\$\(|\b(?:do|then|else|elif|if|while|until)\b)(\s*)(time(?:\s+-p)?|coproc)(?=\s|$)/g;
const BRACE_WORD = /(^|[\s;&|(`])\{(?=[^\s}])/;
const BRACE_WORD_ALL = new RegExp(BRACE_WORD.source, "g");

/** What the guard saw in a command: its findings and every simple command (nested scripts included). */
export interface CommandAnalysis {
  findings: GuardFinding[];
  /** Every simple command, top level and nested, in the order found. */
  commands: SimpleCommand[];
  /** Function definitions (a command using its own functions is never a safe-bin command). */
  functionCount: number;
  /** False when the input could not be parsed as written. */
  parsed: boolean;
  /**
   * Constructs whose meaning depends on values known only at run time (see runtime-evaluation):
   * the guard cannot judge them soundly, so such a command is never a safe-bin command.
   */
  unsound: string[];
}

/** The command guard for `exec`, `execute_code` and `process`. `check` is synchronous and pure. */
export interface CommandGuard {
  /** Verdict for a shell command line. */
  check(command: string): CommandVerdict;
  /** Verdict for an argv run without a shell (`execve`), e.g. `["rm", "-rf", "/"]`. */
  checkArgv(argv: readonly string[]): CommandVerdict;
  /**
   * Findings plus the simple commands, for callers that also apply safe-bin profiles. `dialect`
   * names the shell that runs the script (default bash, what exec-class tools run).
   */
  analyse(command: string, options?: { dialect?: ShellDialect }): CommandAnalysis;
  /** The shells and interpreters of a command that may read its input (stdin), see shell-input. */
  inputReaders(command: string): InputReaders;
  /** Like {@link analyse}, for an argv run without a shell. */
  analyseArgv(argv: readonly string[]): CommandAnalysis;
}

class Analyser {
  readonly findings: GuardFinding[] = [];
  readonly commands: SimpleCommand[] = [];
  functionCount = 0;
  readonly unsound: string[] = [];
  private parsedChars = 0;
  private readonly downloads = new DownloadTracker();
  private readonly writtenPrograms = new WrittenPrograms();
  /**
   * Texts already read as plain words for a hidden hard command (see `hidden`): each is read once,
   * so a nested script does not read the scripts around it again, and the check stays linear.
   */
  private readonly hiddenRead = new Set<string>();
  /** The readable texts (see `command`) of the scripts around the one being analysed. */
  private enclosing: readonly string[] = [];
  /** The readable texts of the script last parsed: the enclosing texts of the scripts nested in it. */
  private current: readonly string[] = [];
  parsed = true;

  constructor(private readonly parser: ShellParser) {}

  script(source: string, depth: number, cwd: StartDirectory, dialect: ShellDialect = "bash"): void {
    if (source.length > MAX_COMMAND_LENGTH) {
      this.findings.push(
        ...tooComplexFindings(
          `the command is ${source.length} characters long, more than the ${MAX_COMMAND_LENGTH} the guard analyses`,
          source,
        ),
      );
      this.parsed = false;
      return;
    }
    if (hasHiddenCharacters(source)) {
      this.findings.push(
        softFinding("soft.hidden-characters", "the command contains invisible or control characters"),
      );
    }
    // tree-sitter-bash glues a line that starts with `\` to the previous line's last word; a blank
    // after the newline changes nothing bash runs and gives the parser the right split.
    let text = source.includes("\n\\") ? source.replace(/\n\\/g, "\n \\") : source;
    // tree-sitter-bash does not know the read-write redirection `<>`; to the guard it is a write.
    if (text.includes("<>")) text = text.replace(/<>/g, "> ");
    // `time` and `coproc` are reserved words to bash but plain words to tree-sitter-bash, which then
    // misreads `time { ...; }` and `time while ...`. Blanking them changes nothing bash would run.
    if (text.includes("time") || text.includes("coproc")) {
      // Twice: in `time time x` each pass blanks one of the words.
      for (let pass = 0; pass < 2; pass++) {
        text = text.replace(
          KEYWORD_PREFIX,
          (_m, before: string, space: string, word: string) => before + space + " ".repeat(word.length),
        );
      }
    }
    // Blanking works on the whole text, quoted scripts too (`sh -c '{ time x; }'`), and dash has no
    // `time` keyword (`time` is /usr/bin/time there): the text as written is read as well, when it
    // parses cleanly.
    if (text !== source) this.parse(source, depth, cwd, dialect, true, true);
    const clean = this.parse(text, depth, cwd, dialect);
    // `{rm,-rf,/}` is brace expansion to bash but an unclosed group to tree-sitter. A `{` followed
    // by a non-blank never opens a group in bash, so it is re-read as a plain word character.
    // A backquote tree-sitter could not parse is no substitution node, so its unescaped text
    // (inside backquotes bash drops the `\` before `\`, `` ` `` and `$`) is read from the text.
    if (!clean && text.includes("`"))
      for (const span of substitutionSpans(text)) this.nested(span, depth, cwd, dialect);
    if (!clean && BRACE_WORD.test(text))
      this.parse(text.replace(BRACE_WORD_ALL, `$1${BRACE_MARK}`), depth, cwd, dialect);
    // bash joins `\`-newline inside words (`r\<newline>m` is `rm`); tree-sitter splits them, so the
    // joined text is analysed as well and the stricter result stands.
    if (/\\\r?\n/.test(text)) this.parse(text.replace(/\\\r?\n/g, ""), depth, cwd, dialect);
    if (dialect === "posix") this.posix(source, text, depth, cwd);
  }

  /**
   * A script a POSIX shell (dash) runs: its bash-only constructs are flagged, and it is read again
   * with them spelt as dash reads them (see shell-dialect); the stricter result stands.
   */
  private posix(source: string, text: string, depth: number, cwd: StartDirectory): void {
    const constructs = bashOnlyConstructs(source);
    if (constructs.length > 0) {
      this.findings.push(
        softFinding(
          "soft.shell-dialect",
          `a script run by a POSIX shell (sh is dash here) uses bash-only ${constructs.join(", ")}, which dash reads differently`,
        ),
      );
    }
    // As written (dash has no `time` keyword) and with bash's keywords blanked.
    // dash has no `time` keyword: when bash's keywords were blanked, the text as written is what
    // dash runs, read even if tree-sitter stumbles over it.
    const reading = posixReading(source) ?? (text === source ? undefined : source);
    if (reading !== undefined) this.parse(reading, depth, cwd, "posix", true);
    const blanked = text === source ? undefined : posixReading(text);
    if (blanked !== undefined) this.parse(blanked, depth, cwd, "posix", true);
  }

  /** Parses and analyses one text; false when the parser had to recover from errors. */
  private parse(
    source: string,
    depth: number,
    cwd: StartDirectory,
    dialect: ShellDialect,
    variant = false,
    onlyIfClean = false,
  ): boolean {
    this.parsedChars += source.length;
    if (this.parsedChars > PARSE_BUDGET) {
      this.parsed = false;
      this.findings.push(
        ...tooComplexFindings(
          `the command and the scripts nested in it are more than ${PARSE_BUDGET} characters to analyse`,
          source,
        ),
      );
      return false;
    }
    let pipes = 0;
    for (let i = source.indexOf("|"); i !== -1 && pipes <= MAX_PIPES; i = source.indexOf("|", i + 1)) pipes++;
    if (pipes > MAX_PIPES) {
      this.parsed = false;
      this.findings.push(
        ...tooComplexFindings(
          `the command has more than ${MAX_PIPES} pipes (|), more than the guard analyses`,
          source,
        ),
      );
      return false;
    }
    let tree: ReturnType<ShellParser["parse"]>;
    try {
      tree = this.parser.parse(source);
      if (onlyIfClean && tree.hasError) {
        tree.dispose();
        return false;
      }
    } catch {
      this.parsed = false;
      this.findings.push(
        softFinding("soft.unparseable", "the command could not be parsed as a shell command"),
      );
      return false;
    }
    try {
      if (tree.hasError) {
        this.parsed = false;
        this.findings.push(
          softFinding(
            "soft.unparseable",
            "the command is not valid shell syntax (unbalanced quotes, brackets or keywords), so what it would run is unclear",
          ),
        );
      }
      const walked = walkShell(tree.root, new Map(), cwd);
      // What a word computed at run time could be: the script's own words, and every value the
      // walk worked out for a variable (`a=re; b=boot; x=$a$b` holds `reboot` though no word does).
      // A nested script's words may come from the scripts around it (`c=reboot; bash -c '$c'`).
      const readable = [
        ...this.enclosing,
        source,
        walked.assignments.map((a) => a.value.text).join("\n"),
      ].filter((t) => t !== "");
      this.current = readable;
      // The walk stopped part-way: what it did not reach is read as plain words.
      if (walked.tooComplex)
        this.findings.push(
          ...this.tooComplex("the command nests or expands too deeply to analyse", readable),
        );
      this.functionCount += walked.functions.length;
      for (const fn of walked.functions) {
        if (fn.forkBomb)
          this.findings.push(
            hardFinding(
              "hard.fork-bomb",
              `the function ${fn.name} calls itself in a pipe or in the background: a fork bomb`,
            ),
          );
      }
      for (const cmd of walked.commands) this.command(cmd, depth, dialect, readable);
      this.pathChanges(walked.assignments);
      for (const use of [
        ...stateAssignmentUses(walked.assignments),
        ...stateDeclarationUses(walked.declarations),
      ])
        this.findings.push(...this.tooComplex(use.reason, readable));
      // `export LD_PRELOAD=…` / `export GIT_CONFIG_KEY_0=…` set the environment of later commands.
      const shellEnv = environmentCommands(walked.assignments);
      this.findings.push(...shellEnv.findings);
      for (const c of shellEnv.commands) this.nested(c.text, depth, cwd, dialect);
      for (const script of walked.embeddedScripts) this.nested(script, depth, cwd, dialect);
      const evaluation = runtimeEvaluation(tree.root);
      for (const reason of evaluation.unsound) if (!this.unsound.includes(reason)) this.unsound.push(reason);
      // `x='y[$(cmd)]'; echo $((x))`: bash runs the substitution when it evaluates the value.
      for (const literal of evaluation.literals) this.nested(literal, depth, cwd, "bash");
      if (walked.strayDollar && !variant) {
        this.parse(source.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, "$${$1}"), depth, cwd, dialect, true);
      }
      return !tree.hasError;
    } finally {
      tree.dispose();
    }
  }

  /**
   * Analyses one simple command; `source` is the script it is part of and the values of its
   * variables, read as plain words where the command depends on what the guard does not follow.
   */
  command(
    cmd: SimpleCommand,
    depth: number,
    dialect: ShellDialect = "bash",
    readable: readonly string[] = [],
  ): void {
    this.commands.push(cmd);
    this.findings.push(...hardRedirectFindings(cmd), ...softRedirectFindings(cmd));
    const redirectVariant = redirectPatterns(cmd);
    if (redirectVariant !== undefined) {
      for (const finding of [
        ...hardRedirectFindings(redirectVariant),
        ...softRedirectFindings(redirectVariant),
      ])
        this.findings.push(finding.verdict === "deny" ? softenUnknown(finding) : finding);
    }
    const { invocations, scripts, unwrapped, unknown } = unwrapCommand(cmd);
    for (const reason of unknown) this.findings.push(softFinding("soft.wrapped-command", reason));
    if (unwrapped !== undefined)
      this.findings.push(
        ...tooComplexFindings(
          "the command is wrapped in more programs that run programs than the guard follows",
          unwrapped.map((f) => f.text).join(" "),
        ),
      );
    this.pathChanges(cmd.assignments);
    const env = environmentCommands(cmd.assignments);
    this.findings.push(...env.findings, ...internalAddressAssignments(cmd.assignments));
    for (const c of env.commands) scripts.push({ ...c, via: ["environment"] });
    // The program that reads such a variable (`PAGER`, `LESSOPEN`, `GIT_SSH_COMMAND`) runs it with
    // `sh -c` (popen, system()): that shell is a program of the command too.
    if (env.commands.length > 0) this.commands.push(shellCommand(cmd));
    const script = readable.length === 0 ? [cmd.argv.map((a) => a.text).join(" ")] : readable;
    const stateUses = stateAssignmentUses(cmd.assignments);
    for (const inv of invocations) {
      stateUses.push(
        ...stateInvocationUses(inv),
        ...stateAssignmentUses([...declaredAssignments(inv), ...envCommandAssignments(inv)]),
      );
    }
    for (const use of stateUses) {
      this.findings.push(...this.tooComplex(use.reason, script));
      for (const c of use.commands) scripts.push({ ...c, via: ["bash"] });
    }
    for (const inv of invocations) {
      // A command name computed at run time (`$c`, `${!v}`, a name reference, `$(f)`, a loop
      // variable, `read`, `printf -v`, `set --`, …) may be any word the script holds or builds: a
      // hard command among them could be what runs.
      if (inv.nameField.dynamic)
        this.findings.push(
          ...this.hidden(script, `the command name ${inv.nameField.text} is computed at run time`),
        );
      this.invocation(inv);
      for (const c of optionCommands(inv)) scripts.push({ ...c, via: [...inv.via, inv.name] });
      // Programs that run programs from their arguments (sed `e`, `make --eval`, tmux, ...).
      const run = runnerCommands(inv);
      for (const c of run.commands) scripts.push({ ...c, via: [...inv.via, inv.name] });
      // popen / system(): the runner starts `sh -c TEXT`, a program of the command too (never a safe bin).
      if (run.commands.some((c) => !c.direct)) this.commands.push(shellCommand(cmd));
      for (const reason of run.unknown) this.findings.push(softFinding("soft.wrapped-command", reason));
      this.pathChanges(envCommandAssignments(inv));
      const viaEnv = environmentCommands(envCommandAssignments(inv));
      this.findings.push(...viaEnv.findings, ...internalAddressAssignments(envCommandAssignments(inv)));
      for (const c of viaEnv.commands) scripts.push({ ...c, via: [...inv.via, "env"] });
      if (viaEnv.commands.length > 0) this.commands.push(shellCommand(cmd));
      if (inv.nameField.dynamic && inv.nameField.bare !== "" && inv.nameField.bare !== inv.nameField.text) {
        // `rm${EMPTY} -rf /`: judge the name as if the unknown parts were empty, too.
        const bareField = literalField(inv.nameField.bare);
        this.invocation({ ...inv, name: programName(bareField), nameField: bareField });
      }
      if (inv.name === "alias") {
        for (const a of inv.args) {
          const eq = a.text.indexOf("=");
          if (eq > 0) scripts.push({ text: a.text.slice(eq + 1), dynamic: a.dynamic, via: ["alias"] });
        }
      }
      if (
        SHELL_PROGRAMS.has(inv.name) &&
        inv.source.stdinText.length > 0 &&
        !inv.args.some((a) => !a.text.startsWith("-"))
      ) {
        for (const text of inv.source.stdinText)
          scripts.push({ text, dynamic: false, via: [...inv.via, inv.name] });
      }
    }
    for (const script of scripts)
      this.nested(script.text, depth, startDirectoryOf(cmd), nestedDialect(script.via, dialect));
  }

  /**
   * `PATH=bin:$PATH`: every later name may run another program (a file the line wrote, say), so
   * the command is never safe bins, and the written-program check follows the directories.
   */
  private pathChanges(assignments: readonly Assignment[]): void {
    if (!assignments.some((a) => a.name === "PATH")) return;
    this.writtenPrograms.observeAssignments(assignments);
    const reason = "PATH is changed, so a later command name may run another program than the one it names";
    if (!this.unsound.includes(reason)) this.unsound.push(reason);
  }

  /** Too complex to judge (ask), and denied when the texts name a hard command (see past-limits). */
  private tooComplex(reason: string, texts: readonly string[]): GuardFinding[] {
    return [softFinding("soft.too-complex", reason), ...this.hidden(texts, reason)];
  }

  /** The hard findings of the texts read as plain words, each text read once per analysis. */
  private hidden(texts: readonly string[], where: string): GuardFinding[] {
    const out: GuardFinding[] = [];
    for (const text of texts) {
      if (this.hiddenRead.has(text)) continue;
      this.hiddenRead.add(text);
      out.push(...hiddenHardFindings(text, where));
    }
    return out;
  }

  private nested(text: string, depth: number, cwd: StartDirectory, dialect: ShellDialect): void {
    if (depth >= MAX_SCRIPT_NESTING) {
      this.findings.push(
        ...tooComplexFindings(`scripts are nested more than ${MAX_SCRIPT_NESTING} levels deep`, text),
      );
      return;
    }
    const saved = { enclosing: this.enclosing, current: this.current };
    this.enclosing = this.current;
    try {
      this.script(text, depth + 1, cwd, dialect);
    } finally {
      this.enclosing = saved.enclosing;
      this.current = saved.current;
    }
  }

  private invocation(inv: Invocation): void {
    this.downloads.observe(inv);
    this.writtenPrograms.observe(inv);
    this.findings.push(...familyFindings(inv));
    // Unknown parts and globs as patterns: what some value could make the invocation be.
    for (const variant of variantsOf(inv)) {
      for (const finding of familyFindings(variant.invocation)) {
        this.findings.push(
          finding.verdict === "deny" && variant.kind === "unknown" ? softenUnknown(finding) : finding,
        );
      }
    }
  }

  result(): CommandAnalysis {
    this.findings.push(...this.downloads.findings(), ...this.writtenPrograms.findings());
    return {
      findings: this.findings,
      commands: this.commands,
      functionCount: this.functionCount,
      parsed: this.parsed,
      unsound: this.unsound,
    };
  }
}

/** A hard finding that holds only through unknown parts: a person looks (soft.unknown-parts). */
function softenUnknown(finding: GuardFinding): GuardFinding {
  const reason = `${finding.reason.charAt(0).toLowerCase()}${finding.reason.slice(1)}`;
  return softFinding("soft.unknown-parts", `with some value of its unknown parts, ${reason}`);
}

function familyFindings(inv: Invocation): GuardFinding[] {
  return [
    ...hardInvocationFindings(inv),
    ...softInvocationFindings(inv),
    ...interpreterFindings(inv),
    ...wrappedHardFindings(inv),
  ];
}

/** The `sh` a runner program starts for the commands it runs (see command-runners). */
function shellCommand(from: SimpleCommand): SimpleCommand {
  const sh = literalField("sh");
  return { ...argvCommand([]), argv: [sh], argInner: [[]], upstream: from.upstream, cwd: from.cwd };
}

function argvCommand(argv: readonly string[]): SimpleCommand {
  const fields = argv.map(literalField);
  return {
    argv: fields,
    argInner: fields.map(() => []),
    assignments: [],
    redirects: [],
    stdinText: [],
    stdinInner: [],
    upstream: [],
    cwd: undefined,
  };
}

/**
 * Builds a command guard over an already loaded parser (the composition root loads it with
 * `createCommandGuard` / `createShellParser` of src/platform/: loading the WASM grammar is I/O).
 */
export function commandGuardFromParser(parser: ShellParser): CommandGuard {
  const analyse = (command: string, options: { dialect?: ShellDialect } = {}): CommandAnalysis => {
    const analyser = new Analyser(parser);
    analyser.script(command, 0, { cwd: undefined }, options.dialect ?? "bash");
    return analyser.result();
  };
  const analyseArgv = (argv: readonly string[]): CommandAnalysis => {
    const analyser = new Analyser(parser);
    if (argv.length === 0) {
      analyser.findings.push(softFinding("soft.unparseable", "the argv is empty"));
      analyser.parsed = false;
    } else {
      if (argv.some(hasHiddenCharacters))
        analyser.findings.push(
          softFinding("soft.hidden-characters", "an argument contains invisible or control characters"),
        );
      analyser.command(argvCommand(argv), 0);
    }
    return analyser.result();
  };
  return {
    analyse,
    analyseArgv,
    inputReaders: (command) => inputReaders(analyse(command).commands),
    check: (command) => decideCommand(analyse(command).findings),
    checkArgv: (argv) => decideCommand(analyseArgv(argv).findings),
  };
}
