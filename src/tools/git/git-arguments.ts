import { type ToolFailure, toolFailure } from "../../catalog/index.js";

/**
 * A revision as the git tools accept it: a name, hash or expression (`HEAD~2`, `main@{1}`,
 * `v1.0^{commit}`, `a..b`), never an option. A leading `-` would let a model's argument be read as
 * an option (`--output=/etc/x`, `--ext-diff`) even before `--end-of-options`, so it is refused
 * outright; so is anything with whitespace or control characters. `:` (`HEAD:path`) only where the
 * tool shows a file as of a revision.
 */
const REVISION = /^[A-Za-z0-9_@.][A-Za-z0-9_@./{}~^+-]*$/;
const REVISION_WITH_PATH = /^[A-Za-z0-9_@.:][A-Za-z0-9_@./{}~^+:-]*$/;

/** Longest revision accepted, chars. */
export const REVISION_MAX_CHARS = 256;

/** `undefined` when `value` is an acceptable revision, else the `validation` failure naming `field`. */
export function checkRevision(
  field: string,
  value: string,
  options: { allowPath?: boolean } = {},
): ToolFailure | undefined {
  const shape = options.allowPath ? REVISION_WITH_PATH : REVISION;
  if (value.length <= REVISION_MAX_CHARS && shape.test(value)) return undefined;
  const allowed = options.allowPath
    ? "a revision such as HEAD, HEAD~2, a branch, tag or hash, or rev:path"
    : "a revision such as HEAD, HEAD~2, main..feature, a branch, tag or hash";
  return toolFailure(
    "validation",
    `${field} ${JSON.stringify(value)} is not allowed: expected ${allowed} (no leading '-', no spaces, at most ${REVISION_MAX_CHARS} chars)`,
    { fields: [{ field, problem: "is not a plain revision" }] },
  );
}

/**
 * `undefined` when `value` may be a path argument: not an option (leading `-`) and no pathspec magic
 * (leading `:`; the tools also set GIT_LITERAL_PATHSPECS, so globs are literal). Where it points is
 * the path fence's to judge.
 */
export function checkPathArgument(field: string, value: string): ToolFailure | undefined {
  const control = [...value].some((ch) => (ch.codePointAt(0) ?? 0) < 0x20);
  if (!value.startsWith("-") && !value.startsWith(":") && !control) return undefined;
  return toolFailure(
    "validation",
    `${field} ${JSON.stringify(value)} is not allowed: give a path relative to the workspace (no leading '-' or ':', no control characters)`,
    { fields: [{ field, problem: "is not a plain path" }] },
  );
}
