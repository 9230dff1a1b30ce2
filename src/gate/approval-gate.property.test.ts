import { describe, expect, it } from "vitest";
import { RISK_LEVELS, type RiskLevel } from "../catalog/index.js";
import {
  APPROVAL_MODES,
  EXEC_ASK_MODES,
  EXEC_MODES,
  EXEC_SECURITY_LEVELS,
  type ExecMode,
  UNATTENDED_POLICIES,
} from "../policy/index.js";
import { memoryAllowAlwaysStore } from "./allow-always-memory.fixture.js";
import { ApprovalGate } from "./approval-gate.js";
import type { GateCall, GateConfig, GateContext, GuardAssessment } from "./gate-input.js";
import type { GatePorts } from "./step.js";

/** mulberry32: seeded, so a failure names a reproducible case. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS = [
  "exec",
  "execute_code",
  "process",
  "write_file",
  "read_file",
  "web_fetch",
  "cronjob",
  "skill_install",
];
const CHANNELS = ["cli", "cron", "telegram", "api", "task"];
/** Session exec modes from loosest to strictest (the order tightening follows). */
const EXEC_MODE_ORDER: readonly ExecMode[] = ["full", "auto", "allowlist", "ask", "deny"];

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)] as T;
}
function subset<T>(r: () => number, items: readonly T[]): T[] {
  return items.filter(() => r() < 0.4);
}

function randomCase(r: () => number) {
  const risk: RiskLevel = pick(r, RISK_LEVELS);
  const tool = pick(r, TOOLS);
  const guards: (GuardAssessment | undefined)[] = [
    undefined,
    { verdict: "allow", rule: "a", reason: "nothing", safeBins: r() < 0.5 },
    { verdict: "ask", rule: "soft", reason: "soft finding" },
    { verdict: "deny", rule: "hard", reason: "hard finding" },
  ];
  const args = { command: pick(r, ["ls", "make", "rm -rf build"]) };
  const call: GateCall = {
    tool,
    risk,
    args,
    argsHash: `h-${args.command}`,
    ...(() => {
      const g = pick(r, guards);
      return g ? { guard: g } : {};
    })(),
  };
  const unattended = r() < 0.5;
  const ctx: GateContext = {
    unattended,
    cronAuthorized: r() < 0.5,
    channel: pick(r, CHANNELS),
    userId: pick(r, ["ann", "bob"]),
    agentId: "agent",
    parentExecutionId: r() < 0.25 ? "parent" : null,
    interactive: !unattended && r() < 0.5,
    scheduleId: "s1",
  };
  const config: GateConfig = {
    autoApprove: subset(r, TOOLS),
    trustedChannels: subset(r, CHANNELS),
    cliAutoApprove: r() < 0.5,
    mode: pick(r, APPROVAL_MODES),
    unattendedPolicy: pick(r, UNATTENDED_POLICIES),
    smartModelConfigured: r() < 0.7,
    elevated: { enabled: r() < 0.5, allowFrom: r() < 0.5 ? { "*": ["*"] } : {} },
    adminUsers: r() < 0.3 ? ["ann"] : [],
    execSecurity: pick(r, EXEC_SECURITY_LEVELS),
    execAsk: pick(r, EXEC_ASK_MODES),
    execHost: pick(r, ["local", "remote", "sandbox"] as const),
    sessionExecMode: pick(r, EXEC_MODES),
  };
  const ports: GatePorts = {
    allowAlways: memoryAllowAlwaysStore([
      {
        v: 1,
        tool,
        argsHash: call.argsHash,
        scope: "agent",
        scopeId: "agent",
        createdBy: "op",
        createdAt: 0,
      },
    ]),
    smartApprover: { ask: async () => pick(r, ["APPROVE", "DENY", "ESCALATE", "approve."]) },
  };
  return { call, ctx, config, ports };
}

/** Every way of making one setting stricter by one notch. */
function tightenings(config: GateConfig): GateConfig[] {
  const out: GateConfig[] = [];
  const next = <T>(order: readonly T[], value: T) => order[order.indexOf(value) + 1];
  const mode = next(APPROVAL_MODES, config.mode);
  if (mode) out.push({ ...config, mode });
  const up = next(UNATTENDED_POLICIES, config.unattendedPolicy);
  if (up) out.push({ ...config, unattendedPolicy: up });
  const ask = next(EXEC_ASK_MODES, config.execAsk);
  if (ask) out.push({ ...config, execAsk: ask });
  const sec = next(EXEC_SECURITY_LEVELS, config.execSecurity);
  if (sec) out.push({ ...config, execSecurity: sec });
  const em = next(EXEC_MODE_ORDER, config.sessionExecMode);
  if (em) out.push({ ...config, sessionExecMode: em });
  if (config.autoApprove.length) out.push({ ...config, autoApprove: config.autoApprove.slice(1) });
  if (config.trustedChannels.length)
    out.push({ ...config, trustedChannels: config.trustedChannels.slice(1) });
  if (config.cliAutoApprove) out.push({ ...config, cliAutoApprove: false });
  if (!config.elevated.enabled) out.push({ ...config, elevated: { ...config.elevated, enabled: true } });
  return out;
}

describe("ApprovalGate properties over random configs and contexts", () => {
  const seed = Number(process.env.GATE_SEED ?? 20261129);

  it("never allows a dangerous call in an unattended context", async () => {
    const r = prng(seed);
    for (let i = 0; i < 2000; i++) {
      const c = randomCase(r);
      const call = { ...c.call, risk: "dangerous" as const };
      const ctx = { ...c.ctx, unattended: true };
      const decision = await new ApprovalGate(c.config, c.ports).check(call, ctx, {
        humanApproval: { approver: "x", tool: call.tool, argsHash: call.argsHash },
      });
      expect(decision.verdict, `seed ${seed} case ${i}`).toBe("deny");
    }
  });

  it("never lets steps 5-10 allow an unattended call (step 4 answers, or a person at step 11)", async () => {
    const r = prng(seed + 2);
    let allowedByStep4 = 0;
    for (let i = 0; i < 3000; i++) {
      const c = randomCase(r);
      const ctx = { ...c.ctx, unattended: true, interactive: false };
      const decision = await new ApprovalGate(c.config, c.ports).check(c.call, ctx);
      const label = `seed ${seed + 2} case ${i}: ${JSON.stringify({ call: c.call, ctx, decision })}`;
      if (decision.verdict === "allow") {
        expect(decision.step, label).toBeLessThanOrEqual(4);
        if (!ctx.cronAuthorized) {
          // Without a grant only read-only calls or calls allow_safe judged safe run unattended.
          expect(decision.step, label).toBe(4);
          expect(c.call.risk === "read_only" || c.config.unattendedPolicy === "allow_safe", label).toBe(true);
          allowedByStep4++;
        }
      } else {
        expect([1, 2, 3, 4, 11], label).toContain(decision.step);
      }
    }
    expect(allowedByStep4).toBeGreaterThan(50);
  });

  it("never turns a deny or an ask into an allow when any one setting is tightened", async () => {
    const r = prng(seed + 1);
    let checked = 0;
    for (let i = 0; i < 1500; i++) {
      const c = randomCase(r);
      // The smart model must answer the same to both gates: fix its answer per case.
      const answer = pick(r, ["APPROVE", "DENY", "ESCALATE"]);
      const ports = { ...c.ports, smartApprover: { ask: async () => answer } };
      const before = await new ApprovalGate(c.config, ports).check(c.call, c.ctx);
      if (before.verdict === "allow") continue;
      for (const tighter of tightenings(c.config)) {
        const after = await new ApprovalGate(tighter, ports).check(c.call, c.ctx);
        expect(after.verdict, `seed ${seed + 1} case ${i}: ${JSON.stringify({ before, after })}`).not.toBe(
          "allow",
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
