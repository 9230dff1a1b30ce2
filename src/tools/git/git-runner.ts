import { type ToolExecutionContext, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { currentWorkspaceView } from "../beneath/workspace-view.js";
import type { ProcessSupervisor } from "../process/process-supervisor.js";
import { configNamesArgv, gitArgv, gitEnv, neutralisingEnv, programKeys } from "./git-invocation.js";
import { type GitOutcome, runGitProcess } from "./git-process.js";
import type { GitRepository } from "./git-repository.js";

/** What the git tools need from the worker (see createBuiltinTools). */
export interface GitToolOptions {
  readonly processes: ProcessSupervisor;
  /** Absolute path of the git binary. Default /usr/bin/git; the tools are not ready without it. */
  readonly git?: string;
  /** Absolute path of nsenter, used when a run works in a workspace layer. Default /usr/bin/nsenter. */
  readonly nsenter?: string;
  /** Output kept per call, bytes (the loop truncates and spills what it sends on). */
  readonly outputMaxBytes: number;
  /** Timeout of one git process, seconds. Default 30. */
  readonly timeoutSeconds?: number;
}

/** Default git binary. */
export const DEFAULT_GIT = "/usr/bin/git";

/**
 * Runs one read-only git command in `repository`: first lists the repository's configuration key
 * names (a command that starts no program) to blank every program-running key it sets, then runs
 * `command` with the hardened settings, the blanking and a scrubbed environment. Output past the
 * cap is dropped and said so; a non-zero exit is a `business` failure carrying git's message.
 *
 * The fixed `-c` settings hold whatever the configuration says when the command runs. The blanking
 * of driver keys is as of the listing: a process of the same run that rewrote `.git/config` between
 * the two could add a filter driver the command then runs (git_status and a working-tree git_diff
 * hash files through clean filters; the other calls read only the object store, and textconv and
 * external diff are off by flag). That needs exec or process beside the git tools, which the
 * default security profile (daemon) removes; git 2.39 has no switch that ignores attributes.
 */
export async function runGit(
  options: GitToolOptions,
  ctx: ToolExecutionContext,
  repository: GitRepository,
  command: readonly string[],
): Promise<ToolResult> {
  const base = {
    supervisor: options.processes,
    runId: ctx.executionId,
    git: options.git ?? DEFAULT_GIT,
    nsenter: options.nsenter ?? "/usr/bin/nsenter",
    view: currentWorkspaceView(),
    timeoutMs: (options.timeoutSeconds ?? 30) * 1000,
  };
  const listed = await runGitProcess({
    ...base,
    argv: configNamesArgv(repository.root),
    env: gitEnv(repository.root),
    stdoutMaxBytes: 4 * 1024 * 1024,
  });
  // An unread configuration could hide a program-running key: no command runs without the full list.
  if (listed.exitCode !== 0 || listed.droppedBytes > 0) {
    return failure(listed, "reading the repository's configuration");
  }
  const keys = programKeys(listed.stdout.split("\0").filter((name) => name !== ""));
  const outcome = await runGitProcess({
    ...base,
    argv: gitArgv(repository.root, command),
    env: gitEnv(repository.root, neutralisingEnv(keys)),
    stdoutMaxBytes: options.outputMaxBytes,
  });
  if (outcome.exitCode !== 0) return failure(outcome, `git ${command[0]}`);
  const data = { blankedKeys: keys, droppedBytes: outcome.droppedBytes };
  let text = outcome.stdout;
  if (outcome.droppedBytes > 0) {
    text += `${text.endsWith("\n") ? "" : "\n"}[${outcome.droppedBytes} more bytes of output dropped; narrow the revision range or give a path]`;
  }
  return toolSuccess(text === "" ? "(no output)" : text, data);
}

function failure(outcome: GitOutcome, what: string): ToolResult {
  if (outcome.spawnError !== undefined) {
    return toolFailure("not_ready", `git could not start: ${outcome.spawnError}`);
  }
  if (outcome.timedOut) {
    return toolFailure("timeout", `${what} did not finish in time; its process group was killed`);
  }
  if (outcome.droppedBytes > 0) {
    return toolFailure("business", `${what}: the repository's configuration is too large to check`);
  }
  const message = outcome.stderr.trim().split("\n").slice(-3).join("\n") || "no message";
  const how = outcome.exitCode !== undefined ? `exit code ${outcome.exitCode}` : `signal ${outcome.signal}`;
  return toolFailure("business", `${what} failed (${how}): ${message}`, {
    exitCode: outcome.exitCode ?? null,
  });
}
