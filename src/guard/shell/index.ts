export { findInvisibleCharacters } from "./invisible-characters.js";
export { runtimeEvaluation } from "./runtime-evaluation.js";
export { bashOnlyConstructs, nestedDialect, posixReading, type ShellDialect } from "./shell-dialect.js";
export type { ShellParser } from "./shell-parser.js";
export {
  type Assignment,
  type Redirect,
  type SimpleCommand,
  type StartDirectory,
  startDirectoryOf,
  walkShell,
} from "./shell-walk.js";
export { BRACE_MARK, type Field, literalField } from "./shell-words.js";
export { substitutionSpans } from "./substitution-spans.js";
export { hasHiddenCharacters } from "./text-normalise.js";
