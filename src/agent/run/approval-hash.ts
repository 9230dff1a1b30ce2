import { posix } from "node:path";
import type { ExecHost } from "../../catalog/index.js";
import { EXEC_CLASS_TOOLS } from "../../gate/index.js";
import { hashCanonical } from "../../shared/index.js";

/** The directory an exec-class call runs in: the run's workspace joined with its `cwd` argument. */
export function workingDirectoryOf(args: Readonly<Record<string, unknown>>, workspace: string): string {
  const cwd = typeof args.cwd === "string" ? args.cwd : ".";
  return posix.resolve(workspace, cwd);
}

/**
 * The hash an approval binds (DESIGN §1.4: what was approved is what runs). For exec-class calls it
 * binds the exec host and the working directory too (the run's workspace joined with `cwd`), so an
 * approval given for a command in the sandbox never runs that command on the host, nor in another
 * directory; and, when the command runs files of the workspace (`runFiles`, see runFileDigests),
 * their content digests, so a script changed after the approval asks again. Other tools' hash is
 * the canonical arguments' hash.
 */
export function approvalArgsHash(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: string,
  execHost: ExecHost = "local",
  runFiles?: Readonly<Record<string, string>>,
): string {
  return hashCanonical(approvalSubject(tool, args, workspace, execHost, runFiles));
}

/** What an approval covers and the approver is shown: see {@link approvalArgsHash}. */
export function approvalSubject(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: string,
  execHost: ExecHost = "local",
  runFiles?: Readonly<Record<string, string>>,
): unknown {
  if (!(EXEC_CLASS_TOOLS as readonly string[]).includes(tool)) return args;
  return {
    args,
    execHost,
    workingDirectory: workingDirectoryOf(args, workspace),
    // Only when there are some: the hash of a call that runs no workspace file is unchanged.
    ...(runFiles ? { runFiles } : {}),
  };
}

/**
 * The key an approval request of a call is found by. A call that runs workspace files asks under
 * a key that includes their digests: when a file changed between the approval and the run, the run
 * finds no decision for the new content and asks again (rather than being refused as a mismatch).
 */
export function approvalKeyOf(idempotencyKey: string, runFiles?: Readonly<Record<string, string>>): string {
  return runFiles ? `${idempotencyKey}\u0000files:${hashCanonical(runFiles)}` : idempotencyKey;
}

/** The call's own idempotency key behind an approval key (see {@link approvalKeyOf}). */
export function callKeyOf(approvalKey: string): string {
  const at = approvalKey.indexOf("\u0000files:");
  return at === -1 ? approvalKey : approvalKey.slice(0, at);
}
