import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";
import { type CommandGuard, commandGuardFromParser, type ShellParser } from "../guard/index.js";

/** Options for {@link createShellParser}. */
export interface ShellParserOptions {
  /**
   * The tree-sitter-bash grammar: its bytes, or a file path. Default: the `tree-sitter-bash.wasm`
   * shipped in the `tree-sitter-bash` package (nothing is downloaded at run time).
   */
  grammar?: Uint8Array | string;
}

let runtimeReady: Promise<void> | undefined;
const languages = new Map<Uint8Array | string, Promise<Language>>();

function defaultGrammarPath(): string {
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/**
 * Loads tree-sitter-bash into web-tree-sitter. Loading the WASM runtime and grammar is I/O (a file
 * read, once per process), which is why it lives here and not in the pure guard; every parse
 * afterwards is pure and synchronous.
 */
export async function createShellParser(options: ShellParserOptions = {}): Promise<ShellParser> {
  runtimeReady ??= Parser.init();
  await runtimeReady;
  const grammar = options.grammar ?? defaultGrammarPath();
  let language = languages.get(grammar);
  if (language === undefined) {
    language = Language.load(grammar);
    languages.set(grammar, language);
  }
  const parser = new Parser();
  parser.setLanguage(await language);
  return {
    parse(source) {
      const tree = parser.parse(source);
      if (tree === null) throw new Error("tree-sitter returned no tree");
      return { root: tree.rootNode, hasError: tree.rootNode.hasError, dispose: () => tree.delete() };
    },
  };
}

/**
 * Loads the bash grammar and returns the command guard over it. Loading is asynchronous and done
 * once; every check afterwards is synchronous, pure and about as fast as one tree-sitter parse.
 */
export async function createCommandGuard(options: ShellParserOptions = {}): Promise<CommandGuard> {
  return commandGuardFromParser(await createShellParser(options));
}
