import { posix } from "node:path";
import { pathArgumentsOf } from "../catalog/index.js";
import { isHostAllowed, type NetworkPolicy } from "../policy/index.js";
import type { RunFile } from "./command-run-files.js";
import { type ExecHostKind, hostEffect } from "./exec-host-table.js";
import { type ExecPolicy, type ExecVerdict, stricterExecVerdict } from "./exec-policy.js";
import type { GuardAssessment } from "./guard-assessment.js";
import { checkExecNetwork, checkUrl, type HostResolver } from "./network/index.js";
import type { PathFence } from "./paths/index.js";
import type { ShellDialect } from "./shell/index.js";
import { findInvisibleCharacters } from "./shell/index.js";

/** What the guard reads of a call's execution context (a tool's ToolExecutionContext has these). */
export interface CallGuardContext {
  readonly executionId: string;
  readonly workspace: string;
  readonly workspaceOnly: boolean;
}

/** Assesses one call with the guard (command guard + exec policy, SSRF with DNS, path fence). */
export interface CallGuard {
  assess(
    tool: string,
    args: Readonly<Record<string, unknown>>,
    ctx: CallGuardContext,
  ): Promise<GuardAssessment | undefined>;
  /**
   * The workspace files an exec-class call runs (`sh x.sh`, `./x`, `make`, `npm run`: see
   * commandRunFiles), whose content an approval binds; none for other tools, or without a parser.
   */
  runFiles?(tool: string, args: Readonly<Record<string, unknown>>): readonly RunFile[];
}

/** Options for {@link createCallGuard}. */
export interface CallGuardOptions {
  /** `tools.exec.security` / `ask` / safe bins over the command guard. */
  execPolicy: ExecPolicy;
  resolver: HostResolver;
  /**
   * The path fence of a workspace (callers cache per workspace); `workspaceOnly` is the run's
   * `ctx.workspaceOnly`, and the fence is workspace-only when it or `tools.restrict_to_workspace` says so.
   */
  pathFence(workspace: string, workspaceOnly: boolean): PathFence;
  /**
   * The path operands of a shell command (guard's `commandPathOperands` over the command guard's
   * analysis). When given, a workspace-only run's exec, process and bash execute_code commands have
   * every path operand checked by the fence.
   */
  commandPaths?: (command: string) => readonly string[];
  /** The files a shell command runs (guard's `commandRunFiles` over the command guard's analysis). */
  commandRunFiles?: (command: string, dialect: ShellDialect) => readonly RunFile[];
  networkPolicy: NetworkPolicy;
  allowedHosts: readonly string[];
  /** `tools.exec.host` (default local): in the sandbox, code the guard cannot read is contained. */
  execHost?: ExecHostKind;
  /**
   * The command a background process of a run was started with (`process start`), by run
   * (execution id) and process id; what `process write` feeds is judged by who reads it. Without
   * it (or for an unknown process) a write asks.
   */
  processCommand?: (executionId: string, id: string) => string | undefined;
}

function fromExec(
  verdict: { verdict: "allow" | "ask" | "deny"; rule: string; reason: string },
  safeBins: boolean,
): GuardAssessment {
  return { verdict: verdict.verdict, rule: verdict.rule, reason: verdict.reason, safeBins };
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * True when an absolute path, read lexically (`..` folded), lies in /tmp: inside the sandbox that is
 * the sandbox's own empty tmpfs, not the host's /tmp, so a command writing there stays in the
 * workspace-only run's bounds. Lexical on purpose: the host's /tmp and its links are not what the
 * command sees.
 */
function inSandboxTmp(path: string): boolean {
  if (!path.startsWith("/")) return false;
  const normal = posix.normalize(path);
  return normal === "/tmp" || normal.startsWith("/tmp/");
}

/**
 * The guard as the gate's step 1 sees it: commands of exec / process / execute_code through the
 * exec policy (command guard + safe bins), URLs through the SSRF check (resolved once) and the
 * restricted-network host list, and path arguments of file tools through the path fence.
 */
export function createCallGuard(options: CallGuardOptions): CallGuard {
  /**
   * The workspace fence over a command's path operands (workspace-only runs): a hard finding
   * (deny) outranks the fence; otherwise an operand the fence denies denies the call.
   */
  function fenced(command: string, verdict: GuardAssessment, ctx: CallGuardContext): GuardAssessment {
    if (verdict.verdict === "deny" || !ctx.workspaceOnly || !options.commandPaths) return verdict;
    const fence = options.pathFence(ctx.workspace, true);
    for (const path of options.commandPaths(command)) {
      if (options.execHost === "sandbox" && inSandboxTmp(path)) continue;
      const check = fence.check(path, "read");
      if (check.verdict === "deny") {
        return {
          verdict: "deny",
          rule: check.rule,
          reason: `the command names ${path}: ${check.reason}; in a workspace-only run (session mode or tools.restrict_to_workspace) commands keep to the workspace`,
        };
      }
    }
    return verdict;
  }

  function processWrite(
    args: Readonly<Record<string, unknown>>,
    executionId: string,
  ): GuardAssessment | undefined {
    if (typeof args.input !== "string" || typeof args.id !== "string") return undefined;
    const command = options.processCommand?.(executionId, args.id);
    if (command === undefined) {
      return {
        verdict: "ask",
        rule: "soft.shell-input",
        reason: `the program of process ${args.id} is not known here, so what its input would run cannot be judged`,
      };
    }
    const verdict = options.execPolicy.checkInput(command, args.input);
    return verdict === undefined ? undefined : fromExec(verdict, false);
  }

  /** The exec verdict, made stricter by the network check of the hosts it connects to. */
  async function execWithNetwork(verdict: ExecVerdict, safeBins: boolean): Promise<GuardAssessment> {
    const base = fromExec(verdict, safeBins);
    if (base.verdict === "deny") return base;
    const network = await checkExecNetwork(verdict.networkTargets, {
      networkPolicy: options.networkPolicy,
      allowedHosts: options.allowedHosts,
      resolver: options.resolver,
    });
    if (network === undefined || RANK[network.verdict] <= RANK[base.verdict]) return base;
    return { verdict: network.verdict, rule: network.rule, reason: network.reason, safeBins: false };
  }

  const byTool: CallGuard = {
    async assess(tool, args, ctx) {
      switch (tool) {
        case "exec": {
          const command = args.command;
          if (typeof command !== "string")
            return { verdict: "ask", rule: "exec.no-command", reason: "no command to check" };
          let verdict = options.execPolicy.check(command);
          // stdin reaches the command: a shell in it may run it as a script, an interpreter as code.
          if (typeof args.stdin === "string")
            verdict = stricterExecVerdict(verdict, options.execPolicy.checkInput(command, args.stdin));
          return fenced(command, await execWithNetwork(verdict, verdict.safeBins), ctx);
        }
        case "process": {
          if (args.action === "write") return processWrite(args, ctx.executionId);
          const command = args.command;
          if (typeof command !== "string") return undefined;
          // A background process is never judged safe by safe-bin profiles; a shell or
          // interpreter started with no script runs whatever `write` feeds it later.
          const verdict = stricterExecVerdict(
            options.execPolicy.check(command),
            options.execPolicy.checkInput(command, null),
          );
          return fenced(command, await execWithNetwork(verdict, false), ctx);
        }
        case "execute_code": {
          const code = typeof args.code === "string" ? args.code : "";
          if (args.language === "bash" || args.language === "sh") {
            // The script's stdin reaches any shell or interpreter it starts (`sh`, `source /dev/stdin`).
            const verdict = options.execPolicy.check(code, {
              dialect: args.language === "sh" ? "posix" : "bash",
            });
            const input =
              typeof args.stdin === "string" ? options.execPolicy.checkInput(code, args.stdin) : undefined;
            return fenced(code, await execWithNetwork(stricterExecVerdict(verdict, input), false), ctx);
          }
          if (hostEffect("exec.code", options.execHost ?? "local") === "contained") {
            return {
              verdict: "allow",
              rule: "exec.sandbox-contained",
              reason: `runs ${String(args.language ?? "unknown")} code in the sandbox (tools.exec.host is sandbox), which contains it`,
              safeBins: false,
            };
          }
          return {
            verdict: "ask",
            rule: "exec.code",
            reason: `runs ${String(args.language ?? "unknown")} code, which the command guard cannot analyse`,
          };
        }
        default:
          break;
      }
      const url = args.url;
      if (typeof url === "string") {
        const verdict = await checkUrl(url, options.resolver);
        // A restricted network denies every host off the list, internal or not: deny outranks ask.
        if (options.networkPolicy === "restricted" && !isHostAllowed(verdict.host, options.allowedHosts)) {
          return {
            verdict: "deny",
            rule: "network.restricted",
            reason: `${verdict.host || url} is not in execution.allowed_hosts (network_policy is restricted)`,
          };
        }
        if (verdict.verdict !== "allow")
          return { verdict: verdict.verdict, rule: verdict.rule, reason: verdict.reason };
        return { verdict: "allow", rule: verdict.rule, reason: verdict.reason };
      }
      const paths = pathArgumentsOf(tool);
      if (paths) {
        const fence = options.pathFence(ctx.workspace, ctx.workspaceOnly);
        for (const field of paths.fields) {
          const value = args[field];
          if (typeof value !== "string") continue;
          const verdict = fence.check(value, paths.access);
          if (verdict.verdict === "deny")
            return { verdict: "deny", rule: verdict.rule, reason: verdict.reason };
        }
        return { verdict: "allow", rule: "path.inside", reason: "every path stays inside the fence" };
      }
      return undefined;
    },
  };
  return {
    assess: async (tool, args, ctx) => withInvisibleCharacters(await byTool.assess(tool, args, ctx), args),
    runFiles(tool, args) {
      const runFiles = options.commandRunFiles;
      if (!runFiles) return [];
      if (tool === "exec" || (tool === "process" && args.action !== "write")) {
        return typeof args.command === "string" ? runFiles(args.command, "bash") : [];
      }
      if (tool === "execute_code" && (args.language === "bash" || args.language === "sh")) {
        return typeof args.code === "string"
          ? runFiles(args.code, args.language === "sh" ? "posix" : "bash")
          : [];
      }
      return [];
    },
  };
}

/**
 * Any tool's call whose arguments hold invisible, direction-changing or control characters needs a
 * person (soft): a deny of the tool's own guard stays a deny, an ask keeps its rule and gains the
 * reason, an allow becomes an ask. Only tightens.
 */
function withInvisibleCharacters(
  assessment: GuardAssessment | undefined,
  args: Readonly<Record<string, unknown>>,
): GuardAssessment | undefined {
  const finding = findInvisibleCharacters(args);
  if (finding === null || assessment?.verdict === "deny") return assessment;
  if (assessment?.verdict === "ask")
    return { ...assessment, reason: `${assessment.reason}; ${finding.reason}` };
  return { verdict: "ask", rule: finding.rule, reason: finding.reason, safeBins: false };
}
