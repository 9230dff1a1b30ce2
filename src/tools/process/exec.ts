import Type, { type Static } from "typebox";
import { defineTool, type Tool, toolFailure } from "../../catalog/index.js";
import { bashReadiness, bashScriptArgs, locateBash } from "./bash-shell.js";
import { execToolTimeoutSeconds, MAX_COMMAND_CHARS, resolveTimeout } from "./call-limits.js";
import { foregroundCallFields, runForegroundCall } from "./foreground-call.js";
import { execReadiness } from "./host-launch.js";
import { cwdPermission, resolveProcessCwd } from "./process-cwd.js";
import type { ProcessToolOptions } from "./process-tool-options.js";

const ExecParams = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: MAX_COMMAND_CHARS,
      description: "Shell command, run with bash -c in the workspace",
    }),
    ...foregroundCallFields("command"),
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
      return runForegroundCall(options, ctx, {
        cwd: cwd.path,
        command: [bash.path, ...bashScriptArgs(args.command)],
        ...(args.stdin === undefined ? {} : { stdin: args.stdin }),
        timeoutSeconds: timeout.seconds,
      });
    },
  });
}
