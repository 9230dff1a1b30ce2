import Type, { type Static } from "typebox";
import {
  defineTool,
  type Tool,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../../catalog/index.js";
import { assertNever } from "../../shared/index.js";
import { missingForAction } from "../action-args.js";
import { BackgroundProcess, type BackgroundProcessStatus } from "./background-process.js";
import { bashReadiness, bashScriptArgs, locateBash } from "./bash-shell.js";
import { MAX_COMMAND_CHARS } from "./call-limits.js";
import { execReadiness, launchForTool, processEnv } from "./host-launch.js";
import { cwdPermission, resolveProcessCwd } from "./process-cwd.js";
import type { ProcessToolOptions } from "./process-tool-options.js";

/** What the process tool does. */
export const PROCESS_ACTIONS = ["start", "status", "list", "read", "write", "signal", "stop"] as const;
export type ProcessAction = (typeof PROCESS_ACTIONS)[number];

/** Signals a run may send to its own processes. */
export const PROCESS_SIGNALS = [
  "SIGINT",
  "SIGTERM",
  "SIGHUP",
  "SIGQUIT",
  "SIGKILL",
  "SIGUSR1",
  "SIGUSR2",
] as const;

const READ_ONLY_ACTIONS: ReadonlySet<ProcessAction> = new Set(["status", "list", "read"]);

const ProcessParams = Type.Object(
  {
    action: Type.Enum(PROCESS_ACTIONS, {
      description: "start | status | list | read | write | signal | stop",
    }),
    command: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_COMMAND_CHARS,
        description: "start: shell command (bash -c)",
      }),
    ),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4096,
        description: "start: working directory in the workspace",
      }),
    ),
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: "The process id start returned (p1, p2, ...)",
      }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, description: "read: output offset to read from (default 0)" }),
    ),
    max_chars: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 8000, description: "read: most chars to return (default 8000)" }),
    ),
    input: Type.Optional(
      Type.String({ maxLength: 1_048_576, description: "write: text for the process's stdin" }),
    ),
    close_stdin: Type.Optional(Type.Boolean({ description: "write: close stdin after writing" })),
    signal: Type.Optional(
      Type.Enum(PROCESS_SIGNALS, { description: "signal: which signal to send to the process group" }),
    ),
  },
  { additionalProperties: false },
);
export type ProcessArgs = Static<typeof ProcessParams>;

// The fields each action needs; anything else given is ignored.
const REQUIRED: Readonly<Record<ProcessAction, readonly (keyof ProcessArgs)[]>> = {
  start: ["command"],
  status: ["id"],
  list: [],
  read: ["id"],
  write: ["id", "input"],
  signal: ["id", "signal"],
  stop: ["id"],
};

function stateText(s: BackgroundProcessStatus): string {
  if (s.state === "running") return "running";
  if (s.error !== undefined) return `failed to start: ${s.error}`;
  return s.exitCode !== undefined ? `exited with code ${s.exitCode}` : `killed by ${s.signal ?? "a signal"}`;
}

function describeStatus(s: BackgroundProcessStatus): string {
  return `${s.id} (pid ${s.pid ?? "-"}): ${stateText(s)}; ${s.outputChars} chars of output; command: ${s.command}`;
}

/**
 * `process`: background processes of the run. `start` runs a shell command in its own process
 * group (workspace cwd, scrubbed environment) and returns an id; `status`, `list` and `read`
 * (paged output, at most 8,000 chars a call) observe; `write` feeds stdin; `signal` and `stop`
 * end it. A run sees only its own processes, and all of them are stopped when the run ends or the
 * worker dies (see ProcessSupervisor).
 */
export function createProcessTool(options: ProcessToolOptions): Tool<typeof ProcessParams> {
  const { limits, processes } = options;

  function find(ctx: ToolExecutionContext, id: string): BackgroundProcess | ToolResult {
    return (
      processes.background(ctx.executionId, id) ??
      toolFailure(
        "business",
        `no process ${id} in this run (processes end with the run, and a resumed run on another worker starts without them); use action list`,
      )
    );
  }

  return defineTool({
    name: "process",
    description:
      "Manage background processes of this run: start a shell command, check its status, read its output in pages, write to its stdin, send it a signal or stop it.",
    parameters: ProcessParams,
    timeoutSeconds: Math.ceil(limits.killGraceMs / 1000) + 30,
    readinessDetail: () => execReadiness(options.execHost, options.sandbox),
    isReadOnly: (args) => READ_ONLY_ACTIONS.has(args.action),
    isDestructive: (args) => args.action === "start" || args.action === "write",
    checkPermissions: (args, ctx) =>
      args.action === "start" ? cwdPermission(options, ctx, args.cwd) : { behavior: "passthrough" },
    async execute(args, ctx) {
      const missing = REQUIRED[args.action].filter((field) => args[field] === undefined);
      if (missing.length > 0) return missingForAction(missing, args.action);
      const action = args.action;
      switch (action) {
        case "start": {
          const live = processes.listBackground(ctx.executionId).filter((p) => p.running).length;
          if (live >= limits.processMaxPerRun) {
            return toolFailure(
              "business",
              `this run already has ${live} running processes (the limit is ${limits.processMaxPerRun}); stop one first`,
            );
          }
          const bash = locateBash();
          if (bash === undefined) return toolFailure("internal", bashReadiness().detail);
          const cwd = await resolveProcessCwd(options, ctx, args.cwd);
          if (!cwd.ok) return cwd.result;
          // On the sandbox host each background process gets a sandbox of its own.
          const launched =
            options.execHost === "local"
              ? undefined
              : await launchForTool(options, ctx, cwd.path, [
                  bash.path,
                  ...bashScriptArgs(args.command as string),
                ]);
          if (launched && !launched.ok) return launched.result;
          const started = processes.startBackground(ctx.executionId, {
            command: args.command as string,
            bash: bash.path,
            cwd: cwd.path,
            env: processEnv(options, cwd.path),
            outputMaxChars: limits.processOutputMaxChars,
            ...(launched?.ok ? { launch: launched.launch } : {}),
          });
          return toolSuccess(
            `Started ${started.id} (pid ${started.pid ?? "-"}): ${started.command}`,
            started.status(),
          );
        }
        case "list": {
          const all = processes.listBackground(ctx.executionId).map((p) => p.status());
          if (all.length === 0) return toolSuccess("No processes in this run.", { processes: [] });
          return toolSuccess(all.map(describeStatus).join("\n"), { processes: all });
        }
        case "status": {
          const proc = find(ctx, args.id as string);
          if (!(proc instanceof BackgroundProcess)) return proc;
          return toolSuccess(describeStatus(proc.status()), proc.status());
        }
        case "read": {
          const proc = find(ctx, args.id as string);
          if (!(proc instanceof BackgroundProcess)) return proc;
          const max = Math.min(args.max_chars ?? limits.liveOutputMaxChars, limits.liveOutputMaxChars);
          const page = proc.read(args.offset ?? 0, max);
          const status = proc.status();
          const notes = [
            page.skipped > 0 ? `${page.skipped} older chars were dropped` : "",
            `chars ${page.from}-${page.next} of ${status.outputChars}`,
            page.next < status.outputChars ? `more: read with offset ${page.next}` : "no more output yet",
            stateText(status),
          ].filter(Boolean);
          return toolSuccess(
            `${page.text}${page.text.endsWith("\n") || page.text === "" ? "" : "\n"}[${notes.join("; ")}]`,
            {
              ...page,
              state: status.state,
            },
          );
        }
        case "write": {
          const proc = find(ctx, args.id as string);
          if (!(proc instanceof BackgroundProcess)) return proc;
          const written = await proc.write(args.input as string, args.close_stdin ?? false);
          if (!written) return toolFailure("business", `${proc.id} has ended or its stdin is closed`);
          return toolSuccess(
            `Wrote ${(args.input as string).length} chars to ${proc.id}${args.close_stdin ? " and closed its stdin" : ""}`,
          );
        }
        case "signal": {
          const proc = find(ctx, args.id as string);
          if (!(proc instanceof BackgroundProcess)) return proc;
          if (!proc.signal(args.signal as NodeJS.Signals))
            return toolFailure("business", `${proc.id} has already ended`);
          return toolSuccess(`Sent ${args.signal} to ${proc.id}'s process group`);
        }
        case "stop": {
          const proc = find(ctx, args.id as string);
          if (!(proc instanceof BackgroundProcess)) return proc;
          await proc.stop();
          return toolSuccess(`Stopped ${proc.id}: ${stateText(proc.status())}`, proc.status());
        }
        default:
          return assertNever(action, "process action");
      }
    },
  });
}
