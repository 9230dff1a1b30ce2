import { DECISION_VERDICTS } from "../../catalog/index.js";

/**
 * Guard verdicts, loosest first. The strictest finding decides: one `deny` outweighs any number of
 * `ask`s, one `ask` outweighs any number of `allow`s.
 */
export const GUARD_VERDICTS = DECISION_VERDICTS;
export type GuardVerdictKind = (typeof GUARD_VERDICTS)[number];

/** Hard families: denied, and no approval, mode or flag lifts the denial. */
export const HARD_RULES = [
  "hard.recursive-delete-system",
  "hard.block-device-write",
  "hard.filesystem-format",
  "hard.shutdown",
  "hard.fork-bomb",
  "hard.system-secret-read",
] as const;

/** Soft families: a person must approve before the command runs. */
export const SOFT_RULES = [
  "soft.recursive-delete",
  "soft.world-writable",
  "soft.setuid",
  "soft.chown-system",
  "soft.service-control",
  "soft.remote-script",
  "soft.piped-interpreter",
  "soft.inline-interpreter",
  "soft.credential-write",
  "soft.private-key-read",
  "soft.destructive-sql",
  "soft.kill-all",
  "soft.crontab",
  "soft.persistence",
  "soft.system-config-write",
  "soft.git-history",
  "soft.raw-disk-read",
  "soft.secret-read",
  "soft.network-internal",
  "soft.network-unknown-host",
  "soft.computed-command",
  "soft.wrapped-command",
  "soft.env-injection",
  "soft.partition-tool",
  "soft.shell-dialect",
  "soft.shell-input",
  "soft.unknown-parts",
  "soft.hidden-characters",
  "soft.unparseable",
  "soft.too-complex",
] as const;

/** Every rule id a command verdict can carry. */
export const COMMAND_RULES = [...HARD_RULES, ...SOFT_RULES, "allow.no-findings"] as const;
export type CommandRule = (typeof COMMAND_RULES)[number];
export type HardRule = (typeof HARD_RULES)[number];
export type SoftRule = (typeof SOFT_RULES)[number];

/** One thing the guard found in a command. */
export interface GuardFinding {
  verdict: Exclude<GuardVerdictKind, "allow">;
  rule: CommandRule;
  /** What was found, in words a person understands. */
  reason: string;
}

/** The guard's answer for one command: the strictest finding, plus every finding behind it. */
export interface CommandVerdict {
  verdict: GuardVerdictKind;
  rule: CommandRule;
  reason: string;
  findings: readonly GuardFinding[];
}

/** Severity rank of a verdict: allow 0, ask 1, deny 2. */
export function verdictRank(verdict: GuardVerdictKind): number {
  return GUARD_VERDICTS.indexOf(verdict);
}

/** Builds a hard (deny) finding. */
export function hardFinding(rule: HardRule, reason: string): GuardFinding {
  return { verdict: "deny", rule, reason };
}

/** Builds a soft (ask) finding. */
export function softFinding(rule: SoftRule, reason: string): GuardFinding {
  return { verdict: "ask", rule, reason };
}

/**
 * Folds findings into one verdict: the first finding of the highest severity decides; duplicates
 * (same rule and reason) are dropped so the list a person reads stays short.
 */
export function decideCommand(findings: readonly GuardFinding[]): CommandVerdict {
  const unique: GuardFinding[] = [];
  const seen = new Set<string>();
  for (const finding of findings) {
    const key = `${finding.rule}\u0000${finding.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(finding);
  }
  let top: GuardFinding | undefined;
  for (const finding of unique) {
    if (top === undefined || verdictRank(finding.verdict) > verdictRank(top.verdict)) top = finding;
  }
  if (top === undefined) {
    return {
      verdict: "allow",
      rule: "allow.no-findings",
      reason: "no dangerous command found",
      findings: [],
    };
  }
  return { verdict: top.verdict, rule: top.rule, reason: top.reason, findings: unique };
}
