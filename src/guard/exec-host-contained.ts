import type { ExecAsk } from "../policy/index.js";
import { hostEffect } from "./exec-host-table.js";
import { decideCommand, type GuardFinding, type GuardVerdictKind } from "./verdict/index.js";

/** The fields of the exec policy's verdict this reads (its ExecVerdict, without importing it). */
interface PolicyVerdict {
  verdict: GuardVerdictKind;
  rule: string;
  reason: string;
  findings: readonly GuardFinding[];
}

const SANDBOX = "tools.exec.host is sandbox";

/**
 * The exec policy's local verdict, judged again for the sandbox host by the exec-host table: a
 * deny stays a deny; `tools.exec.ask: always` still asks; findings whose effect the sandbox contains
 * are dropped, and so is "not a safe bin". What is left decides: a finding the sandbox does not
 * contain still asks, naming the sandbox; nothing left → allowed, the reason naming what the
 * sandbox contains. Only ever loosens an `ask` whose every cause the table marks contained.
 */
export function containedInSandbox<V extends PolicyVerdict>(local: V, ask: ExecAsk): V {
  // With tools.exec.ask off, a miss is a deny under the rule exec.allowlist-miss rather than an ask.
  const loosenable =
    local.verdict === "ask" || (local.verdict === "deny" && local.rule === "exec.allowlist-miss");
  if (!loosenable || local.rule === "exec.ask-always" || ask === "always") return local;
  const kept = local.findings.filter((f) => hostEffect(f.rule, "sandbox") !== "contained");
  const contained = local.findings.filter((f) => hostEffect(f.rule, "sandbox") === "contained");
  const keptVerdict = decideCommand(kept);
  if (keptVerdict.verdict !== "allow") {
    return {
      ...local,
      verdict: local.verdict === "deny" ? "deny" : keptVerdict.verdict,
      rule: keptVerdict.rule,
      reason: `${keptVerdict.reason} (${SANDBOX}, and the sandbox does not contain this)`,
    };
  }
  if (local.rule !== "exec.allowlist-miss" && hostEffect(local.rule, "sandbox") !== "contained") return local;
  const held = [
    ...contained.map((f) => f.reason),
    ...(local.rule === "exec.allowlist-miss" ? [local.reason] : []),
  ];
  return {
    ...local,
    verdict: "allow",
    rule: "exec.sandbox-contained",
    reason: `runs in the sandbox (${SANDBOX}), which contains it: ${[...new Set(held)].join("; ")}`,
  };
}
