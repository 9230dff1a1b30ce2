import { posix } from "node:path";
import type { ExecAsk, ExecSecurity } from "../policy/index.js";
import { assertNever } from "../shared/index.js";
import type { CommandAnalysis, CommandGuard } from "./command-guard.js";
import { containedInSandbox } from "./exec-host-contained.js";
import type { ExecHostKind } from "./exec-host-table.js";
import { commandNetworkTargets, type NetworkTarget } from "./network/index.js";
import {
  resolveSafeBinProfiles,
  type SafeBinProfile,
  type SafeBinProfileConfig,
  validateSafeBinArgv,
} from "./safe-bins/index.js";
import type { ShellDialect, SimpleCommand } from "./shell/index.js";
import { programName, SHELL_PROGRAMS } from "./unwrap/index.js";
import {
  type CommandRule,
  decideCommand,
  type GuardFinding,
  type GuardVerdictKind,
  softFinding,
  verdictRank,
} from "./verdict/index.js";

/** Rules only the exec policy gives (the command guard's rules come through unchanged). */
export const EXEC_RULES = [
  "exec.security-deny",
  "exec.ask-always",
  "exec.allowlist-miss",
  "exec.safe-bins",
  "exec.sandbox-contained",
] as const;
export type ExecRule = (typeof EXEC_RULES)[number];

/**
 * Directories whose programs count as the real thing; a safe bin elsewhere is not safe. Only
 * directories root owns everywhere: /usr/local/bin and /opt/homebrew/bin are often writable by the
 * user (Homebrew), where a planted `head` would pass as the real one.
 */
export const DEFAULT_TRUSTED_DIRS = ["/bin", "/usr/bin", "/sbin", "/usr/sbin"] as const;

/** Inputs of the exec policy (mapped from `tools.exec.*` by the config module). */
export interface ExecPolicyOptions {
  /** `tools.exec.security`: deny | allowlist | full. */
  security: ExecSecurity;
  /** `tools.exec.ask`: off | on-miss | always. */
  ask: ExecAsk;
  /** `tools.exec.safe_bins`: operator profiles, replacing shipped ones of the same name. */
  safeBins?: Readonly<Record<string, SafeBinProfileConfig>>;
  /** Trusted directories for safe bins. Default {@link DEFAULT_TRUSTED_DIRS}. */
  trustedDirs?: readonly string[];
  /**
   * The PATH lookup: the real path (symlinks resolved) of the program a command word runs, or
   * undefined when there is none. Injected so the policy stays pure.
   */
  resolveBinary: (command: string) => string | undefined;
  /**
   * `tools.exec.host`. Default local. In the sandbox, findings the exec-host table marks contained
   * do not flag, and not being a safe bin does not flag (exec-host-table.ts).
   */
  host?: ExecHostKind;
}

/** The exec policy's answer. */
export interface ExecVerdict {
  verdict: GuardVerdictKind;
  rule: CommandRule | ExecRule;
  reason: string;
  /** The command guard's findings behind the verdict. */
  findings: readonly GuardFinding[];
  /** True when every simple command is a safe bin with an argv that fits its profile. */
  safeBins: boolean;
  /** Hosts the command's network programs connect to, for the per-call network check. */
  networkTargets: readonly NetworkTarget[];
}

/** `tools.exec.security` and `tools.exec.ask` applied on top of the command guard. */
export interface ExecPolicy {
  /** A script; `dialect` is the shell that runs it (default bash, what exec-class tools run). */
  check(command: string, options?: { dialect?: ShellDialect }): ExecVerdict;
  checkArgv(argv: readonly string[]): ExecVerdict;
  /**
   * The input a command's process is given: exec's `stdin`, `process write` (a string), or, for
   * `process start`, input still to come (null). A shell that may read it runs it as a script, so
   * it is judged as one; an interpreter runs it as code the guard cannot analyse (ask); a shell or
   * interpreter started with no script will run whatever is written later (ask). Undefined when
   * nothing in the command reads its input as code.
   */
  checkInput(command: string, input: string | null): ExecVerdict | undefined;
}

/** The stricter of two exec verdicts (the first on a tie); safe bins only if both are. */
export function stricterExecVerdict(a: ExecVerdict, b: ExecVerdict | undefined): ExecVerdict {
  if (b === undefined) return a;
  const top = verdictRank(b.verdict) > verdictRank(a.verdict) ? b : a;
  return {
    ...top,
    findings: [...a.findings, ...b.findings],
    safeBins: a.safeBins && b.safeBins,
    // Both sides' hosts are checked: a script fed on stdin connects as much as the command does.
    networkTargets: [...a.networkTargets, ...b.networkTargets],
  };
}

const NULL_SINK = /^\/dev\/null$/;

function redirectsAreHarmless(cmd: SimpleCommand): string | undefined {
  for (const r of cmd.redirects) {
    const target = r.target.map((t) => t.text).join(" ");
    if ((r.op === ">&" || r.op === "<&") && r.target.every((t) => /^(\d+|-)$/.test(t.text))) continue;
    if (/^(>|>>|&>|&>>|>\|)$/.test(r.op) && r.target.length === 1 && NULL_SINK.test(target)) continue;
    return `the redirection ${r.op} ${target} reads or writes a file`;
  }
  return undefined;
}

/**
 * Builds the exec policy. Profiles are compiled once; an invalid operator profile throws
 * `CONFIG_INVALID` here, at start-up, not at the first command.
 */
export function createExecPolicy(guard: CommandGuard, options: ExecPolicyOptions): ExecPolicy {
  const profiles = resolveSafeBinProfiles(options.safeBins);
  const trusted = new Set(
    (options.trustedDirs ?? DEFAULT_TRUSTED_DIRS).map((d) => posix.normalize(d).replace(/\/$/, "")),
  );

  function safeBinMiss(cmd: SimpleCommand): string | undefined {
    const nameField = cmd.argv[0];
    if (nameField === undefined) return "a bare redirection is not a safe-bin command";
    const shown = cmd.argv.map((a) => a.text).join(" ");
    if (cmd.assignments.length > 0)
      return `${shown}: setting environment variables (${cmd.assignments.map((a) => a.name).join(", ")}) is not allowed`;
    if (nameField.dynamic || nameField.glob) return `${shown}: the program name is computed at run time`;
    const name = programName(nameField);
    const profile: SafeBinProfile | undefined = profiles.get(name);
    if (profile === undefined) return `${name} is not a safe bin`;
    const real = options.resolveBinary(nameField.text);
    if (real === undefined) return `${name} was not found on the PATH`;
    if (!trusted.has(posix.dirname(real)))
      return `${name} resolves to ${real}, outside the trusted directories`;
    const redirect = redirectsAreHarmless(cmd);
    if (redirect) return `${shown}: ${redirect}`;
    const check = validateSafeBinArgv(cmd.argv.slice(1), profile);
    return check.ok ? undefined : `${shown}: ${check.reason}`;
  }

  function allowlistMiss(analysis: CommandAnalysis): string | undefined {
    if (!analysis.parsed) return "the command could not be parsed";
    if (analysis.functionCount > 0) return "the command defines shell functions";
    if (analysis.unsound.length > 0)
      return `what the command runs depends on values known only at run time: ${analysis.unsound[0]}`;
    if (analysis.commands.length === 0) return "the command is empty";
    for (const cmd of analysis.commands) {
      const miss = safeBinMiss(cmd);
      if (miss !== undefined) return miss;
    }
    return undefined;
  }

  function decide(analysis: CommandAnalysis): ExecVerdict {
    const verdict = decideLocal(analysis);
    return options.host === "sandbox" ? containedInSandbox(verdict, options.ask) : verdict;
  }

  function decideLocal(analysis: CommandAnalysis): ExecVerdict {
    const guardVerdict = decideCommand(analysis.findings);
    const base = {
      findings: guardVerdict.findings,
      networkTargets: commandNetworkTargets(analysis.commands),
    };
    const miss = allowlistMiss(analysis);
    const safeBins = miss === undefined;
    const security = options.security;
    switch (security) {
      case "deny":
        return {
          ...base,
          verdict: "deny",
          rule: "exec.security-deny",
          reason: "running commands is turned off (tools.exec.security = deny)",
          safeBins,
        };
      case "full":
        if (guardVerdict.verdict !== "deny" && options.ask === "always") {
          return {
            ...base,
            verdict: "ask",
            rule: "exec.ask-always",
            reason: "every command needs approval (tools.exec.ask = always)",
            safeBins,
          };
        }
        return {
          ...base,
          verdict: guardVerdict.verdict,
          rule: guardVerdict.rule,
          reason: guardVerdict.reason,
          safeBins,
        };
      case "allowlist":
        if (guardVerdict.verdict === "deny")
          return { ...base, verdict: "deny", rule: guardVerdict.rule, reason: guardVerdict.reason, safeBins };
        if (!safeBins || guardVerdict.verdict === "ask") {
          const reason = guardVerdict.verdict === "ask" ? guardVerdict.reason : (miss as string);
          if (options.ask === "off") {
            return {
              ...base,
              verdict: "deny",
              rule: "exec.allowlist-miss",
              reason: `not on the allowlist and asking is off (tools.exec.ask = off): ${reason}`,
              safeBins,
            };
          }
          return {
            ...base,
            verdict: "ask",
            rule: guardVerdict.verdict === "ask" ? guardVerdict.rule : "exec.allowlist-miss",
            reason,
            safeBins,
          };
        }
        if (options.ask === "always") {
          return {
            ...base,
            verdict: "ask",
            rule: "exec.ask-always",
            reason: "every command needs approval (tools.exec.ask = always)",
            safeBins,
          };
        }
        return {
          ...base,
          verdict: "allow",
          rule: "exec.safe-bins",
          reason: "every command is a safe bin used within its profile",
          safeBins,
        };
      default:
        return assertNever(security);
    }
  }

  function checkInput(command: string, input: string | null): ExecVerdict | undefined {
    const readers = guard.inputReaders(command);
    if (readers.programs.length === 0) return undefined;
    const ask = (reason: string): ExecVerdict => {
      const finding = softFinding("soft.shell-input", reason);
      return {
        verdict: "ask",
        rule: "soft.shell-input",
        reason,
        findings: [finding],
        safeBins: false,
        networkTargets: [],
      };
    };
    if (input === null) {
      if (readers.bare.length === 0) return undefined;
      return ask(
        `${readers.bare.join(", ")} started with no script runs whatever is written to its input later`,
      );
    }
    let verdict: ExecVerdict | undefined;
    if (readers.shell !== undefined) {
      const script = decide(guard.analyse(input, { dialect: readers.shell }));
      verdict = { ...script, reason: `the input, run as a script: ${script.reason}`, safeBins: false };
    }
    const interpreters = readers.programs.filter(
      (p) => !SHELL_PROGRAMS.has(p) && p !== "source" && p !== ".",
    );
    if (interpreters.length > 0 && input.trim() !== "") {
      const code = ask(
        `${interpreters.join(", ")} may run the input as code, which the guard cannot analyse`,
      );
      verdict = verdict === undefined ? code : stricterExecVerdict(verdict, code);
    }
    return verdict;
  }

  return {
    check: (command, checkOptions) => decide(guard.analyse(command, checkOptions)),
    checkArgv: (argv) => decide(guard.analyseArgv(argv)),
    checkInput,
  };
}
