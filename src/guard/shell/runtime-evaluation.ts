import type { Node } from "web-tree-sitter";
import { decodeAnsiC } from "./shell-words.js";
import { substitutionSpans } from "./substitution-spans.js";

/**
 * Strings bash evaluates at run time. In an arithmetic context (`$((x))`, `((x))`, `for ((…))`,
 * `[[ x -eq 1 ]]`, an indexed array's subscript, `let`) a variable's *value* is evaluated as an
 * expression in turn, and a subscript inside it (`y[$(cmd)]`) runs its substitution; so do a name
 * with a subscript given to `declare`, `unset`, `read`, `printf -v`, `test -v` and friends, and the
 * prompt expansion `${x@P}` and indirection `${!x}`. What such a construct runs depends on values
 * known only at run time, so the guard cannot judge it soundly:
 * - `unsound` lists the constructs whose values the guard does not know (the exec policy never
 *   counts such a command as safe bins: allowlist mode flags it);
 * - `literals` lists the substitutions found in quoted literals of a script that has such a
 *   construct (`x='y[$(rm -rf ~)]'; echo $((x))`): the guard analyses them as scripts.
 */
export interface RuntimeEvaluation {
  unsound: string[];
  literals: string[];
}

const ARITH_TEST_OPS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** The binary operators of `[[ … ]]` besides the arithmetic and file tests. */
const CONDITIONAL_OPERATORS = new Set(["==", "=", "!=", "<", ">", "=~", "&&", "||"]);

function unnamedOperator(node: Node): string {
  for (const child of node.children) if (child && !child.isNamed) return child.type;
  return "";
}
/** Builtins whose operands are variable names (a subscript in one is evaluated). */
const NAME_TAKERS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "unset",
  "read",
  "mapfile",
  "readarray",
  "printf",
  "test",
  "[",
  "let",
  "wait",
  "getopts",
  "shift",
  "return",
  "exit",
]);
/** Builtins that assign their operands (values read at run time). */
const READERS = new Set(["read", "mapfile", "readarray", "getopts"]);
/** Variables bash itself keeps as integers. */
const INTEGER_SPECIALS = new Set([
  "RANDOM",
  "SRANDOM",
  "SECONDS",
  "LINENO",
  "BASHPID",
  "PPID",
  "UID",
  "EUID",
  "OPTIND",
  "EPOCHSECONDS",
  "COLUMNS",
  "LINES",
  "#",
  "?",
  "$",
  "!",
]);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INTEGER = /^-?(0x[0-9a-fA-F]+|\d+)$/;
const MAX_NODES = 20_000;
const EVALUATION_HINT =
  /\(\(|\[|\$\{|\b(let|declare|typeset|local|export|readonly|unset|read|mapfile|readarray|printf|test|wait|getopts|shift|return|exit)\b/;

class Scan {
  /** Names with at least one assignment that is not an integer. */
  readonly unsafe = new Set<string>();
  /** Names with an integer assignment. */
  readonly integer = new Set<string>();
  readonly unsound: string[] = [];
  readonly literals: string[] = [];
  evaluates = false;
  visited = 0;
  private readonly pending: Node[] = [];

  /** Records every assignment in the tree (iterative: a deep tree must not overflow the stack). */
  assignments(root: Node): void {
    const stack: Node[] = [root];
    while (stack.length > 0) {
      const node = stack.pop() as Node;
      if (++this.visited > MAX_NODES) return;
      this.assignment(node);
      pushChildren(node, stack);
    }
  }

  private assignment(node: Node): void {
    if (node.type === "variable_assignment") {
      const name = node.childForFieldName("name")?.text;
      const value = node.childForFieldName("value");
      if (name !== undefined) {
        const integer =
          value === null ||
          value.type === "number" ||
          value.type === "arithmetic_expansion" ||
          INTEGER.test(value.text) ||
          node.parent?.type === "c_style_for_statement";
        (integer ? this.integer : this.unsafe).add(name);
      }
    } else if (node.type === "for_statement") {
      const name = node.childForFieldName("variable")?.text;
      if (name !== undefined) this.unsafe.add(name);
    } else if (node.type === "command") {
      const words = commandWords(node);
      const name = words[0] ?? "";
      if (READERS.has(name) || (name === "printf" && words.includes("-v"))) {
        for (const w of words.slice(1)) if (IDENT.test(w)) this.unsafe.add(w);
      }
    }
  }

  /** True when bash keeps `name`'s value an integer the guard can trust. */
  private safe(name: string): boolean {
    if (INTEGER_SPECIALS.has(name)) return true;
    return this.integer.has(name) && !this.unsafe.has(name);
  }

  /** Walks an arithmetic expression: every value it reads must be a known integer. */
  arithmetic(node: Node, what: string): void {
    this.evaluates = true;
    const stack: Node[] = [node];
    while (stack.length > 0) {
      const n = stack.pop() as Node;
      if (++this.visited > MAX_NODES) return;
      switch (n.type) {
        case "command_substitution":
        case "process_substitution":
          this.flag(`${what} evaluates the output of ${n.text.slice(0, 40)} as an expression`);
          continue;
        case "variable_name":
        case "special_variable_name":
          if (!this.safe(n.text))
            this.flag(`${what} evaluates the value of ${n.text}, known only at run time`);
          continue;
        case "word":
          if (IDENT.test(n.text) && !this.safe(n.text))
            this.flag(`${what} evaluates the value of ${n.text}, known only at run time`);
          else if (!IDENT.test(n.text) && !INTEGER.test(n.text) && /[A-Za-z_$`[]/.test(n.text))
            this.flag(`${what} evaluates ${n.text.slice(0, 40)} at run time`);
          continue;
        case "string":
        case "raw_string":
        case "ansi_c_string":
        case "concatenation":
          if (!INTEGER.test(n.text)) this.flag(`${what} evaluates ${n.text.slice(0, 40)} at run time`);
          break;
        default:
          break;
      }
      for (const child of n.namedChildren) if (child) stack.push(child);
    }
  }

  private flag(reason: string): void {
    if (this.unsound.length < 8 && !this.unsound.includes(reason)) this.unsound.push(reason);
  }

  /** Looks for evaluation contexts (iterative, bounded by MAX_NODES). */
  contexts(root: Node): void {
    const stack = this.pending;
    stack.push(root);
    while (stack.length > 0) {
      const node = stack.pop() as Node;
      if (++this.visited > MAX_NODES) {
        this.flag("the script is too large to look for run-time evaluation");
        return;
      }
      if (this.context(node)) pushChildren(node, stack);
    }
  }

  /** Handles one node; false when its children need no further look. */
  private context(node: Node): boolean {
    switch (node.type) {
      case "arithmetic_expansion":
        this.arithmetic(node, "an arithmetic expansion");
        return false;
      case "compound_statement":
        if (node.child(0)?.type === "((") {
          this.arithmetic(node, "an arithmetic command ((…))");
          return false;
        }
        break;
      case "c_style_for_statement":
        for (const field of ["initializer", "condition", "update"]) {
          for (const part of node.childrenForFieldName(field)) if (part) this.arithmetic(part, "for ((…))");
        }
        for (const body of node.childrenForFieldName("body")) if (body) this.pending.push(body);
        return false;
      case "subscript": {
        const index = node.childForFieldName("index");
        if (index && !/^[@*]$/.test(index.text)) this.arithmetic(index, "an array subscript");
        break;
      }
      case "test_command":
        this.testCommand(node);
        break;
      case "expansion":
        if (/^\$\{!/.test(node.text) || /@[PAKa-k]?P\}$|@P\}$/.test(node.text)) {
          this.evaluates = true;
          this.flag(`${node.text.slice(0, 40)} expands a value known only at run time as code or a name`);
        } else if (/^\$\{[A-Za-z_0-9@*]+:[^-=?+]/.test(node.text)) {
          this.evaluates = true;
          this.flag(`${node.text.slice(0, 40)} evaluates its offsets as arithmetic`);
        }
        break;
      case "declaration_command":
      case "unset_command":
        this.nameTaker(node, node.child(0)?.text ?? "");
        break;
      case "command": {
        const name = commandWords(node)[0] ?? "";
        if (NAME_TAKERS.has(name)) this.nameTaker(node, name);
        break;
      }
      case "raw_string":
      case "ansi_c_string":
      case "word":
      case "concatenation": {
        // A word spelt in pieces ('a[$(c'\''md)]') is decoded whole, then scanned.
        const text = literalText(node);
        // The whole text too: a span cut short (`$(case x in x) …)`) must not hide the rest.
        if (/\$\(|`/.test(text)) this.literals.push(`: ${text}`, ...substitutionSpans(text));
        if (node.type === "concatenation") return false;
        break;
      }
      default:
        break;
    }
    return true;
  }

  private testCommand(node: Node): void {
    const double = node.child(0)?.type === "[[";
    const stack: Node[] = [node];
    while (stack.length > 0) {
      const n = stack.pop() as Node;
      if (++this.visited > MAX_NODES) return;
      if (n.type === "binary_expression" && double) {
        const op = n.childForFieldName("operator")?.text ?? unnamedOperator(n);
        // tree-sitter-bash accepts what bash rejects (`[[ 1 || touch /x ]]` reads as a division):
        // a `[[` the guard cannot read as bash does is not judged sound.
        if (!CONDITIONAL_OPERATORS.has(op) && !ARITH_TEST_OPS.has(op) && !/^-[a-z]{1,2}$/.test(op))
          this.flag(`[[ … ]] holds ${n.text.slice(0, 40)}, which is not a conditional expression bash reads`);
        if (ARITH_TEST_OPS.has(op)) {
          for (const side of ["left", "right"]) {
            const operand = n.childForFieldName(side);
            if (operand) this.arithmetic(operand, `[[ … ${op} … ]]`);
          }
          continue;
        }
      }
      if (n.type === "unary_expression" && n.childForFieldName("operator")?.text === "-v") {
        this.evaluates = true;
        const operand = n.namedChildren.find((c) => c?.type !== "test_operator");
        if (operand && !IDENT.test(operand.text))
          this.flag(`-v ${operand.text.slice(0, 40)} evaluates a subscript or a name known only at run time`);
        continue;
      }
      for (const child of n.namedChildren) if (child) stack.push(child);
    }
  }

  /** `declare 'a[$(cmd)]'`, `unset "a[$i]"`, `printf -v "$name"`, `let "$expr"`: names with subscripts. */
  private nameTaker(node: Node, name: string): void {
    this.evaluates = true;
    const args = node.namedChildren.filter((c): c is Node => c !== null && c.type !== "command_name");
    if (name === "let") {
      for (const arg of args) this.arithmetic(arg, "let");
      return;
    }
    if (name === "printf" && !args.some((a) => a.text === "-v")) return;
    if ((name === "test" || name === "[") && !args.some((a) => a.text === "-v")) return;
    if ((name === "shift" || name === "return" || name === "exit") && args[0]) {
      this.arithmetic(args[0], name);
      return;
    }
    // `declare -n r="$v"; r=1`: a name reference to a name known only at run time (`a[$(cmd)]`).
    const nameref = /^(declare|typeset|local)$/.test(name) && args.some((a) => /^-[a-zA-Z]*n/.test(a.text));
    for (const arg of args) {
      if (nameref && arg.type === "variable_assignment") {
        const value = arg.childForFieldName("value");
        if (value && /[$`[]/.test(value.text))
          this.flag(`${name} -n ${arg.text.slice(0, 40)} makes a name reference known only at run time`);
      }
      const target = arg.type === "variable_assignment" ? arg.childForFieldName("name") : arg;
      if (!target) continue;
      const text = target.text;
      if (target.type === "subscript") {
        const index = target.childForFieldName("index");
        if (index) this.arithmetic(index, `${name}'s subscript`);
      } else if (
        text.includes("[") ||
        /\$|`/.test(text) ||
        (target.type !== "word" && target.type !== "variable_name")
      ) {
        if (!text.startsWith("-") && !/^\d+$/.test(text))
          this.flag(`${name} ${text.slice(0, 40)} names a variable (and subscript) known only at run time`);
      }
    }
  }
}

/** Pushes a node's named children, never more than the node limit allows. */
function pushChildren(node: Node, stack: Node[]): void {
  // One array (`namedChild(i)` walks the siblings from the first: quadratic in a long list).
  const kids = node.namedChildren;
  for (let i = kids.length - 1; i >= 0 && stack.length < MAX_NODES; i--) {
    const child = kids[i];
    if (child) stack.push(child);
  }
}

/** The text of a word's quoted and unquoted literal pieces, decoded; unknown parts as written. */
function literalText(node: Node): string {
  switch (node.type) {
    case "raw_string":
      return node.text.slice(1, -1);
    case "ansi_c_string":
      return decodeAnsiC(node.text.slice(2, -1));
    case "word":
      return node.text.replace(/\\\r?\n/g, "").replace(/\\(.)/g, "$1");
    case "string":
      return node.text.slice(1, -1).replace(/\\([$`"\\])/g, "$1");
    case "concatenation":
      return node.children.map((c) => (c ? literalText(c) : "")).join("");
    default:
      return node.text;
  }
}

function commandWords(node: Node): string[] {
  const words: string[] = [];
  for (const child of node.namedChildren) {
    if (!child || child.type === "variable_assignment" || child.type.endsWith("redirect")) continue;
    words.push(child.type === "command_name" ? (child.namedChild(0)?.text ?? child.text) : child.text);
  }
  return words;
}

/** Scans a parsed bash script for strings bash evaluates at run time (see {@link RuntimeEvaluation}). */
export function runtimeEvaluation(root: Node): RuntimeEvaluation {
  // Nothing bash evaluates at run time can be there without one of these.
  if (!EVALUATION_HINT.test(root.text)) return { unsound: [], literals: [] };
  const scan = new Scan();
  scan.assignments(root);
  scan.visited = 0;
  scan.contexts(root);
  return { unsound: scan.unsound, literals: scan.evaluates ? scan.literals : [] };
}
