import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure } from "../../catalog/index.js";
import { bashReadiness, bashScriptArgs, locateBash } from "./bash-shell.js";
import {
  cwdPermission,
  execReadiness,
  execToolTimeoutSeconds,
  launchForTool,
  launchIdentity,
  MAX_COMMAND_CHARS,
  type ProcessToolOptions,
  resolveProcessCwd,
  resolveTimeout,
} from "./process-tool-support.js";
import { commandResult, runForeground } from "./run-command.js";

const ExecParams = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: MAX_COMMAND_CHARS,
      description: "Shell command, run with bash -c in the workspace",
    }),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "Working directory inside the workspace (default: the workspace)",
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86_400,
        description: "Kill the command after this many seconds (default 60)",
      }),
    ),
    stdin: Type.Optional(
      Type.String({ maxLength: 1_048_576, description: "Text written to the command's standard input" }),
    ),
  },
  { additionalProperties: false },
);
export type ExecArgs = Static<typeof ExecParams>;

/**
 * `exec`: one shell command, exactly the string the gate's command guard parsed, run with
 * `bash --noprofile --norc -c` (bash: the grammar the guard parses; never `/bin/sh`) in its own process group, in the workspace, with an environment scrubbed of
 * secrets. A timeout kills the whole group; output is capped. Exit code 0 is success; any other
 * exit is a `business` failure carrying the output.
 */
export function createExecTool(options: ProcessToolOptions): Tool<typeof ExecParams> {
  const { limits } = options;
  return defineTool({
    name: "exec",
    description:
      "Run a shell command (bash -c) in the workspace and return its combined stdout and stderr. For long-running or interactive processes use the process tool.",
    parameters: ExecParams,
    timeoutSeconds: execToolTimeoutSeconds(limits),
    readinessDetail: () => execReadiness(options.execHost, options.sandbox),
    checkPermissions: (args, ctx) => cwdPermission(options, ctx, args.cwd),
    async execute(args, ctx) {
      const bash = locateBash();
      if (bash === undefined) return toolFailure("internal", bashReadiness().detail);
      const timeout = resolveTimeout(limits, args.timeout_seconds);
      if (!timeout.ok) return timeout.result;
      const cwd = await resolveProcessCwd(options, ctx, args.cwd);
      if (!cwd.ok) return cwd.result;
      const launched = await launchForTool(options, ctx, cwd.path, [
        bash.path,
        ...bashScriptArgs(args.command),
      ]);
      if (!launched.ok) return launched.result;
      const { launch } = launched;
      try {
        const outcome = await runForeground(options.processes, ctx.executionId, launch.file, launch.args, {
          cwd: cwd.path,
          env: launch.env,
          ...launchIdentity(launch),
          ...(args.stdin === undefined ? {} : { input: args.stdin }),
          timeoutMs: timeout.seconds * 1000,
          outputMaxBytes: limits.execOutputMaxBytes,
          clock: options.clock,
        });
        return commandResult(outcome, timeout.seconds);
      } finally {
        await launch.dispose();
      }
    },
  });
}
