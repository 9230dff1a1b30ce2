import type { CallGuard } from "../../guard/index.js";
import { workspaceFileDigest } from "../../tools/index.js";
import { workingDirectoryOf } from "./approval-hash.js";

/** The digests of the files one call runs, by path as the command names them; none is undefined. */
export type RunFileDigests = Readonly<Record<string, string>>;

/**
 * What the workspace files an exec-class call runs hold right now (what was approved is what runs): for each file
 * the guard finds (`sh x.sh`, `./x`, `python3 x.py`, `make`, `npm run`), its SHA-256 or what it is
 * instead (missing, outside the workspace, ...), read by descriptor beneath the workspace. Undefined
 * when the call runs no such file, so the approval hash of every other call stays what it was.
 */
export async function runFileDigests(
  guard: CallGuard,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: string,
): Promise<RunFileDigests | undefined> {
  const files = guard.runFiles?.(tool, args) ?? [];
  if (files.length === 0) return undefined;
  const cwd = workingDirectoryOf(args, workspace);
  const out: Record<string, string> = {};
  for (const file of files) out[file.path] = await workspaceFileDigest(workspace, cwd, file.path);
  return out;
}
