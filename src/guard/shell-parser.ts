import { createRequire } from "node:module";
import { Language, type Node, Parser } from "web-tree-sitter";

/** A parsed shell script: the root node, and whether the parser had to recover from errors. */
export interface ParsedShell {
  root: Node;
  /** True when the tree holds ERROR or MISSING nodes: bash would not run this as written. */
  hasError: boolean;
  /** Frees the tree's WASM memory. */
  dispose(): void;
}

/** A loaded bash parser. `parse` is synchronous once the grammar is loaded. */
export interface ShellParser {
  parse(source: string): ParsedShell;
}

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
 * Loads tree-sitter-bash into web-tree-sitter. Loading the WASM runtime and grammar is the only I/O
 * the guard ever does, once per process; every parse afterwards is pure and synchronous.
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
