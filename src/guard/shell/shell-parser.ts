import type { Node } from "web-tree-sitter";

/**
 * The bash parser the guard reads commands with: a port. Loading tree-sitter's WASM runtime and the
 * bash grammar is I/O, so it happens outside the pure core (`createShellParser` in src/platform/) and
 * the loaded parser is handed to {@link commandGuardFromParser} by the composition root.
 */

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
