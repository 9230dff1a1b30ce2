import { expect } from "vitest";
import type { CommandGuard } from "./command-guard.js";
import type { CommandRule, GuardVerdictKind } from "./verdict/index.js";

/**
 * The assertion the family tables share: `command` gets `verdict`, and `rule` is among its
 * findings (the strictest finding decides the verdict; the rule may sit behind it).
 */
export function expectFinding(
  guard: CommandGuard,
  command: string,
  verdict: GuardVerdictKind,
  rule: CommandRule,
): void {
  const v = guard.check(command);
  expect({ command, verdict: v.verdict }).toEqual({ command, verdict });
  expect(v.findings.map((f) => f.rule)).toContain(rule);
}

/** The assertion for near-misses: ordinary commands the families must leave alone. */
export function expectAllowed(guard: CommandGuard, command: string): void {
  const v = guard.check(command);
  expect({ command, verdict: v.verdict, findings: v.findings.map((f) => f.reason) }).toEqual({
    command,
    verdict: "allow",
    findings: [],
  });
}
