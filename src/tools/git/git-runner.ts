import { type ToolExecutionContext, type ToolResult, toolFailure, toolSuccess } from "../../catalog/index.js";
import { currentWorkspaceView } from "../beneath/workspace-view.js";
import type { ProcessSupervisor } from "../process/process-supervisor.js";
import { gitArgv, gitEnv, objectFormatArgv } from "./git-invocation.js";
import { type GitOutcome, runGitProcess } from "./git-process.js";
import type { GitRepository } from "./git-repository.js";
import { createShadowGitDir, ForeignGitEntry, type ShadowGitDir } from "./git-shadow-dir.js";

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
 * Runs one read-only git command in `repository`: reads its object format (the only thing taken
 * from its configuration), builds a git directory of the runner's own over its `.git` (its config
 * and hooks left out, see git-shadow-dir.ts), then runs `command` there with the hardened settings
 * and a scrubbed environment. So no configuration the workspace wrote is in force when the command
 * runs, and rewriting `.git/config` meanwhile changes nothing. Output past the cap is dropped and
 * said so; a non-zero exit is a `business` failure carrying git's message.
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
  const format = await runGitProcess({
    ...base,
    argv: objectFormatArgv(repository.root),
    env: gitEnv(repository.root),
    stdoutMaxBytes: 1024,
  });
  if (format.exitCode !== 0 && format.exitCode !== 1)
    return failure(format, "reading the repository's object format");
  const objectFormat = format.exitCode === 0 ? format.stdout.trim().toLowerCase() : undefined;
  if (objectFormat !== undefined && !OBJECT_FORMATS.has(objectFormat)) {
    return toolFailure(
      "business",
      `the repository's object format ${JSON.stringify(objectFormat)} is not sha1 or sha256`,
    );
  }
  let shadow: ShadowGitDir;
  try {
    shadow = await createShadowGitDir(repository.root, objectFormat === "sha1" ? undefined : objectFormat);
  } catch (err) {
    if (err instanceof ForeignGitEntry) {
      return toolFailure(
        "denied",
        `${err.message}, which can point git outside the workspace; only a repository whose .git entries are inside it can be read`,
        { rule: "git.foreign-git-dir" },
      );
    }
    throw err;
  }
  try {
    const outcome = await runGitProcess({
      ...base,
      argv: gitArgv(repository.root, command),
      env: gitEnv(repository.root, shadow.dir),
      stdoutMaxBytes: options.outputMaxBytes,
    });
    if (outcome.exitCode !== 0) return failure(outcome, `git ${command[0]}`);
    let text = outcome.stdout;
    if (outcome.droppedBytes > 0) {
      text += `${text.endsWith("\n") ? "" : "\n"}[${outcome.droppedBytes} more bytes of output dropped; narrow the revision range or give a path]`;
    }
    return toolSuccess(text === "" ? "(no output)" : text, { droppedBytes: outcome.droppedBytes });
  } finally {
    await shadow.dispose();
  }
}

const OBJECT_FORMATS = new Set(["sha1", "sha256"]);

function failure(outcome: GitOutcome, what: string): ToolResult {
  if (outcome.spawnError !== undefined) {
    return toolFailure("not_ready", `git could not start: ${outcome.spawnError}`);
  }
  if (outcome.timedOut) {
    return toolFailure("timeout", `${what} did not finish in time; its process group was killed`);
  }
  const message = outcome.stderr.trim().split("\n").slice(-3).join("\n") || "no message";
  const how = outcome.exitCode !== undefined ? `exit code ${outcome.exitCode}` : `signal ${outcome.signal}`;
  return toolFailure("business", `${what} failed (${how}): ${message}`, {
    exitCode: outcome.exitCode ?? null,
  });
}
