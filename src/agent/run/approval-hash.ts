import { posix } from "node:path";
import type { ExecHost } from "../../catalog/index.js";
import { EXEC_CLASS_TOOLS } from "../../gate/index.js";
import { hashCanonical } from "../../shared/index.js";

/**
 * The hash an approval binds (DESIGN §1.4: what was approved is what runs). For exec-class calls it
 * binds the exec host and the working directory too (the run's workspace joined with `cwd`), so an
 * approval given for a command in the sandbox never runs that command on the host, nor in another
 * directory. Other tools' hash is the canonical arguments' hash, as before.
 */
export function approvalArgsHash(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: string,
  execHost: ExecHost = "local",
): string {
  return hashCanonical(approvalSubject(tool, args, workspace, execHost));
}

/** What an approval covers and the approver is shown: see {@link approvalArgsHash}. */
export function approvalSubject(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  workspace: string,
  execHost: ExecHost = "local",
): unknown {
  if (!(EXEC_CLASS_TOOLS as readonly string[]).includes(tool)) return args;
  const cwd = typeof args.cwd === "string" ? args.cwd : ".";
  return { args, execHost, workingDirectory: posix.resolve(workspace, cwd) };
}
