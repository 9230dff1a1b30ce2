import { describe, expect, it } from "vitest";
import { GATE_CONFIG } from "../../test/helpers/policy-and-gate.js";
import type { RiskLevel } from "../catalog/index.js";
import type { AllowAlwaysRecord } from "./allow-always.js";
import { memoryAllowAlwaysStore } from "./allow-always-memory.fixture.js";
import { ApprovalGate } from "./approval-gate.js";
import { callFindings } from "./call-findings.js";
import type { GateCall, GateConfig, GateContext, GuardAssessment } from "./gate-input.js";
import type { GatePorts } from "./step.js";

const INTERACTIVE: GateContext = {
  unattended: false,
  cronAuthorized: false,
  channel: "cli",
  userId: "ann",
  agentId: "agent-1",
  parentExecutionId: null,
  interactive: true,
};
const CRON: GateContext = {
  ...INTERACTIVE,
  unattended: true,
  cronAuthorized: true,
  channel: "cron",
  interactive: false,
  scheduleId: "nightly",
};
const CRON_UNAUTHORISED: GateContext = { ...CRON, cronAuthorized: false };
const CHILD: GateContext = {
  ...INTERACTIVE,
  parentExecutionId: "parent-1",
  interactive: false,
  channel: "task",
};
const QUEUED: GateContext = { ...INTERACTIVE, interactive: false, channel: "api" };

const SAFE_BINS: GuardAssessment = {
  verdict: "allow",
  rule: "exec.safe-bins",
  reason: "safe bins",
  safeBins: true,
};
const NO_FINDINGS: GuardAssessment = {
  verdict: "allow",
  rule: "allow.no-findings",
  reason: "nothing found",
  safeBins: false,
};
const SOFT: GuardAssessment = {
  verdict: "ask",
  rule: "soft.recursive-delete",
  reason: "recursive delete of build/",
};
const HARD: GuardAssessment = {
  verdict: "deny",
  rule: "hard.recursive-delete-system",
  reason: "recursive delete of /",
};
const INTERNAL_URL: GuardAssessment = {
  verdict: "ask",
  rule: "ssrf.internal",
  reason: "127.0.0.1 is internal",
};

function call(
  tool: string,
  risk: RiskLevel,
  guard?: GuardAssessment,
  args: Record<string, unknown> = {},
): GateCall {
  return {
    tool,
    risk,
    args,
    argsHash: `hash-of-${tool}-${JSON.stringify(args)}`,
    ...(guard ? { guard } : {}),
  };
}
const exec = (guard: GuardAssessment = NO_FINDINGS, command = "make build") =>
  call("exec", "exec", guard, { command });
const readFile = call("read_file", "read_only");
const writeFile = call("write_file", "write");
const cronjob = call("cronjob", "dangerous");
const skillInstall = call("skill_install", "dangerous");

const ALWAYS_EXEC: AllowAlwaysRecord = {
  v: 1,
  tool: "exec",
  argsHash: exec().argsHash,
  scope: "agent",
  scopeId: "agent-1",
  createdBy: "bob",
  createdAt: 0,
};
const ALWAYS_CRONJOB: AllowAlwaysRecord = { ...ALWAYS_EXEC, tool: "cronjob", argsHash: cronjob.argsHash };

function smart(reply: string | Error): GatePorts["smartApprover"] {
  return { ask: async () => (reply instanceof Error ? Promise.reject(reply) : reply) };
}

type Case = [
  name: string,
  c: GateCall,
  ctx: GateContext,
  config: Partial<GateConfig>,
  ports: GatePorts,
  expected: { verdict: "allow" | "deny" | "ask"; step: number; source?: "auto" | "human" },
];

const EVERY_SHORTCUT: Partial<GateConfig> = {
  autoApprove: ["exec", "cronjob", "skill_install", "write_file"],
  trustedChannels: ["cli", "cron", "task"],
  cliAutoApprove: true,
  mode: "smart",
  smartModelConfigured: true,
  unattendedPolicy: "allow_safe",
};
const EVERY_PORT: GatePorts = {
  allowAlways: memoryAllowAlwaysStore([
    ALWAYS_EXEC,
    ALWAYS_CRONJOB,
    { ...ALWAYS_CRONJOB, scope: "schedule", scopeId: "nightly" },
  ]),
  smartApprover: smart("APPROVE"),
};

const CASES: Case[] = [
  // step 1: static guard
  ["a hard guard finding is denied at step 1", exec(HARD), INTERACTIVE, {}, {}, { verdict: "deny", step: 1 }],
  [
    "a hard finding stays denied with every shortcut",
    exec(HARD),
    INTERACTIVE,
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "deny", step: 1 },
  ],
  [
    "a tool's own deny is final",
    { ...writeFile, toolPermission: { behavior: "deny", reason: "protected path" } },
    INTERACTIVE,
    {},
    {},
    { verdict: "deny", step: 1 },
  ],
  [
    "exec with tools.exec.security deny is denied",
    exec(),
    INTERACTIVE,
    { execSecurity: "deny" },
    {},
    { verdict: "deny", step: 1 },
  ],
  [
    "exec in a read-only session is denied",
    exec(),
    INTERACTIVE,
    { sessionExecMode: "deny" },
    {},
    { verdict: "deny", step: 1 },
  ],
  ["a soft finding on exec asks a person", exec(SOFT), INTERACTIVE, {}, {}, { verdict: "ask", step: 11 }],
  [
    "a tool's own ask on a write asks a person",
    { ...writeFile, toolPermission: { behavior: "ask", reason: "overwrites a large file" } },
    INTERACTIVE,
    {},
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "an internal URL flags a read-only fetch, which then asks",
    call("web_fetch", "read_only", INTERNAL_URL),
    INTERACTIVE,
    {},
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 2: elevation
  [
    "elevation enabled: exec on the local host from a user not allowed is denied",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: {} } },
    {},
    { verdict: "deny", step: 2 },
  ],
  [
    "elevation enabled: an allow_from user passes",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: { cli: ["ann"] } } },
    {},
    { verdict: "allow", step: 5 },
  ],
  [
    "elevation enabled: '*' as channel key matches any channel",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: { "*": ["ann"] } } },
    {},
    { verdict: "allow", step: 5 },
  ],
  [
    "elevation enabled: '*' as user value matches every user of that channel",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: { cli: ["*"] } } },
    {},
    { verdict: "allow", step: 5 },
  ],
  [
    "elevation enabled: allow_from of another channel does not match",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: { telegram: ["ann"] } } },
    {},
    { verdict: "deny", step: 2 },
  ],
  [
    "elevation enabled: an admin user is always elevated",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: {} }, adminUsers: ["ann"] },
    {},
    { verdict: "allow", step: 5 },
  ],
  [
    "elevation enabled: a sandbox host still needs elevation (stricter than the seed, so tightening exec security never drops it)",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: {} }, execHost: "sandbox" },
    {},
    { verdict: "deny", step: 2 },
  ],
  [
    "elevation enabled: sandbox host with exec security full needs elevation",
    exec(SAFE_BINS),
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: {} }, execHost: "sandbox", execSecurity: "full" },
    {},
    { verdict: "deny", step: 2 },
  ],
  [
    "elevation enabled: a child never holds elevation, even for an admin",
    exec(SAFE_BINS),
    CHILD,
    { elevated: { enabled: true, allowFrom: { "*": ["*"] } }, adminUsers: ["ann"] },
    {},
    { verdict: "deny", step: 2 },
  ],
  [
    "elevation enabled: other tools never need it",
    writeFile,
    INTERACTIVE,
    { elevated: { enabled: true, allowFrom: {} } },
    {},
    { verdict: "allow", step: 5 },
  ],
  [
    "elevation disabled: step 2 passes exec on and later steps decide",
    exec(),
    INTERACTIVE,
    { elevated: { enabled: false, allowFrom: {} } },
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 4: unattended
  ["unattended read-only runs", readFile, CRON_UNAUTHORISED, {}, {}, { verdict: "allow", step: 4 }],
  [
    "unattended flagged read-only does not pass step 4 and policy deny denies it",
    call("web_fetch", "read_only", INTERNAL_URL),
    CRON_UNAUTHORISED,
    {},
    {},
    { verdict: "deny", step: 4 },
  ],
  ["cron-authorised write runs", writeFile, CRON, {}, {}, { verdict: "allow", step: 4 }],
  ["cron-authorised exec runs", exec(), CRON, {}, {}, { verdict: "allow", step: 4 }],
  [
    "cron-authorised exec flagged by the guard is not auto-allowed; policy deny denies",
    exec(SOFT),
    CRON,
    {},
    {},
    { verdict: "deny", step: 4 },
  ],
  [
    "cron-authorised exec flagged by the guard asks under allow_safe",
    exec(SOFT),
    CRON,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "cron-authorised exec with exec ask always is denied under policy deny",
    exec(),
    CRON,
    { execAsk: "always" },
    {},
    { verdict: "deny", step: 4 },
  ],
  ["unattended dangerous is denied", cronjob, CRON, {}, {}, { verdict: "deny", step: 4 }],
  [
    "unattended dangerous is denied with cron grant, auto_approve, trusted channel, allow-always and smart approval",
    cronjob,
    CRON,
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "deny", step: 4 },
  ],
  [
    "unattended skill_install is denied with every shortcut",
    skillInstall,
    CRON,
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "deny", step: 4 },
  ],
  [
    "a child's dangerous call is denied at step 4 (children are unattended)",
    cronjob,
    { ...CHILD, unattended: true },
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "deny", step: 4 },
  ],
  [
    "unauthorised unattended write is denied under policy deny",
    writeFile,
    CRON_UNAUTHORISED,
    {},
    {},
    { verdict: "deny", step: 4 },
  ],
  [
    "unauthorised unattended exec is denied under policy deny",
    exec(SAFE_BINS),
    CRON_UNAUTHORISED,
    {},
    {},
    { verdict: "deny", step: 4 },
  ],
  [
    "allow_safe lets an unflagged write run",
    writeFile,
    CRON_UNAUTHORISED,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "allow", step: 4 },
  ],
  [
    "allow_safe lets a safe-bin exec run",
    exec(SAFE_BINS),
    CRON_UNAUTHORISED,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "allow", step: 4 },
  ],
  [
    "allow_safe sends a non-safe-bin exec on to a person",
    exec(NO_FINDINGS),
    CRON_UNAUTHORISED,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "allow_safe sends execute_code on (it is never a safe bin)",
    call("execute_code", "exec", SAFE_BINS),
    CRON_UNAUTHORISED,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "allow_safe sends a flagged write on to a person",
    { ...writeFile, toolPermission: { behavior: "ask", reason: "x" } },
    CRON_UNAUTHORISED,
    { unattendedPolicy: "allow_safe" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "allow_safe: an unattended exec without a grant asks even with auto_approve, a trusted channel, allow-always and smart approval",
    exec(NO_FINDINGS),
    CRON_UNAUTHORISED,
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "ask", step: 11 },
  ],
  [
    "allow_safe: a sub-agent's unattended exec it does not judge safe is denied at step 11 whatever the shortcuts",
    exec(NO_FINDINGS),
    { ...CHILD, unattended: true },
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "deny", step: 11 },
  ],
  [
    "allow_safe: a cron-authorised flagged exec asks even with every shortcut",
    exec(SOFT),
    CRON,
    EVERY_SHORTCUT,
    EVERY_PORT,
    { verdict: "ask", step: 11 },
  ],
  [
    "session mode full does not loosen tools.exec.*: an exec off the allowlist still asks",
    exec(NO_FINDINGS),
    QUEUED,
    { sessionExecMode: "full" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "session mode full does not loosen tools.exec.security deny",
    exec(SAFE_BINS),
    INTERACTIVE,
    { sessionExecMode: "full", execSecurity: "deny" },
    {},
    { verdict: "deny", step: 1 },
  ],
  // step 5: low risk
  ["interactive read-only runs", readFile, INTERACTIVE, {}, {}, { verdict: "allow", step: 5 }],
  ["interactive write runs", writeFile, INTERACTIVE, {}, {}, { verdict: "allow", step: 5 }],
  ["interactive safe-bin exec runs", exec(SAFE_BINS), INTERACTIVE, {}, {}, { verdict: "allow", step: 5 }],
  [
    "interactive exec without safe bins asks",
    exec(NO_FINDINGS),
    QUEUED,
    {},
    {},
    { verdict: "ask", step: 11 },
  ],
  ["interactive dangerous asks", cronjob, INTERACTIVE, {}, {}, { verdict: "ask", step: 11 }],
  [
    "exec ask always makes a safe-bin exec ask",
    exec(SAFE_BINS),
    INTERACTIVE,
    { execAsk: "always" },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "a guarded session makes a safe-bin exec ask",
    exec(SAFE_BINS),
    INTERACTIVE,
    { sessionExecMode: "ask" },
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 6: auto_approve
  ["auto_approve allows exec", exec(), QUEUED, { autoApprove: ["exec"] }, {}, { verdict: "allow", step: 6 }],
  [
    "auto_approve never allows a flagged exec",
    exec(SOFT),
    QUEUED,
    { autoApprove: ["exec"] },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "auto_approve never allows a dangerous tool",
    cronjob,
    QUEUED,
    { autoApprove: ["cronjob"] },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "auto_approve is ignored in strict mode",
    exec(),
    QUEUED,
    { autoApprove: ["exec"], mode: "strict" },
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 7: CLI auto-approve
  [
    "CLI auto-approve allows exec in an interactive CLI session",
    exec(),
    INTERACTIVE,
    { cliAutoApprove: true },
    {},
    { verdict: "allow", step: 7 },
  ],
  [
    "CLI auto-approve does not apply to a queued API run",
    exec(),
    QUEUED,
    { cliAutoApprove: true },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "CLI auto-approve does not apply to a child",
    exec(),
    { ...CHILD, channel: "cli", interactive: true },
    { cliAutoApprove: true },
    {},
    { verdict: "deny", step: 11 },
  ],
  [
    "CLI auto-approve never allows dangerous",
    cronjob,
    INTERACTIVE,
    { cliAutoApprove: true },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "CLI auto-approve never allows flagged",
    exec(SOFT),
    INTERACTIVE,
    { cliAutoApprove: true },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "CLI auto-approve is off in strict mode",
    exec(),
    INTERACTIVE,
    { cliAutoApprove: true, mode: "strict" },
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 8: trusted channels
  [
    "a trusted channel allows exec",
    exec(),
    { ...QUEUED, channel: "telegram" },
    { trustedChannels: ["telegram"] },
    {},
    { verdict: "allow", step: 8 },
  ],
  [
    "a trusted channel never allows dangerous",
    cronjob,
    { ...QUEUED, channel: "telegram" },
    { trustedChannels: ["telegram"] },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "a trusted channel never allows flagged",
    exec(SOFT),
    { ...QUEUED, channel: "telegram" },
    { trustedChannels: ["telegram"] },
    {},
    { verdict: "ask", step: 11 },
  ],
  [
    "trusted channels are off in strict mode",
    exec(),
    { ...QUEUED, channel: "telegram" },
    { trustedChannels: ["telegram"], mode: "strict" },
    {},
    { verdict: "ask", step: 11 },
  ],
  // step 9: allow-always
  [
    "an allow-always record of the exact arguments allows exec",
    exec(),
    QUEUED,
    {},
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_EXEC]) },
    { verdict: "allow", step: 9 },
  ],
  [
    "an allow-always record applies in strict mode",
    exec(),
    QUEUED,
    { mode: "strict" },
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_EXEC]) },
    { verdict: "allow", step: 9 },
  ],
  [
    "an allow-always record of other arguments does not match",
    exec(NO_FINDINGS, "make deploy"),
    QUEUED,
    {},
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_EXEC]) },
    { verdict: "ask", step: 11 },
  ],
  [
    "an allow-always record of another agent does not match",
    exec(),
    { ...QUEUED, agentId: "agent-2" },
    {},
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_EXEC]) },
    { verdict: "ask", step: 11 },
  ],
  [
    "an allow-always record is never honoured for dangerous",
    cronjob,
    QUEUED,
    {},
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_CRONJOB]) },
    { verdict: "ask", step: 11 },
  ],
  [
    "a command pattern on a binary name alone never matches",
    exec(NO_FINDINGS, "rm -rf build"),
    QUEUED,
    {},
    {
      allowAlways: memoryAllowAlwaysStore([{ ...ALWAYS_EXEC, argsHash: undefined, commandPattern: "rm *" }]),
    },
    { verdict: "ask", step: 11 },
  ],
  [
    "an operator's command pattern with a subcommand matches whole words",
    exec(NO_FINDINGS, "git log --oneline"),
    QUEUED,
    {},
    {
      allowAlways: memoryAllowAlwaysStore([
        { ...ALWAYS_EXEC, argsHash: undefined, commandPattern: "git log *" },
      ]),
    },
    { verdict: "allow", step: 9 },
  ],
  [
    "an operator's command pattern does not match a longer word",
    exec(NO_FINDINGS, "git logx"),
    QUEUED,
    {},
    {
      allowAlways: memoryAllowAlwaysStore([
        { ...ALWAYS_EXEC, argsHash: undefined, commandPattern: "git log *" },
      ]),
    },
    { verdict: "ask", step: 11 },
  ],
  [
    "exec ask always ignores allow-always records",
    exec(),
    QUEUED,
    { execAsk: "always" },
    { allowAlways: memoryAllowAlwaysStore([ALWAYS_EXEC]) },
    { verdict: "ask", step: 11 },
  ],
  // step 10: smart approval
  [
    "smart approval APPROVE allows with approval source auto",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("APPROVE") },
    { verdict: "allow", step: 10, source: "auto" },
  ],
  [
    "smart approval 'approve.' allows",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("  approve.\n") },
    { verdict: "allow", step: 10 },
  ],
  [
    "smart approval 'Approve, but…' asks a person",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("Approve, but check the path") },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval ESCALATE asks a person",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("ESCALATE") },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval HTTP 500 asks a person",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart(new Error("HTTP 500")) },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval DENY denies",
    exec(),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("DENY") },
    { verdict: "deny", step: 10 },
  ],
  [
    "smart approval is not asked about dangerous calls",
    cronjob,
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("APPROVE") },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval is not used in mode off",
    exec(),
    QUEUED,
    { mode: "off", smartModelConfigured: true },
    { smartApprover: smart("APPROVE") },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval is not used in mode strict",
    exec(),
    QUEUED,
    { mode: "strict", smartModelConfigured: true },
    { smartApprover: smart("APPROVE") },
    { verdict: "ask", step: 11 },
  ],
  [
    "smart approval may approve a flagged exec only when the call reaches it",
    exec(SOFT),
    QUEUED,
    { mode: "smart", smartModelConfigured: true },
    { smartApprover: smart("APPROVE") },
    { verdict: "allow", step: 10 },
  ],
  // step 11: a person
  ["a child's exec that reaches step 11 is denied", exec(), CHILD, {}, {}, { verdict: "deny", step: 11 }],
  [
    "a child's interactive dangerous call is denied at step 11",
    cronjob,
    CHILD,
    {},
    {},
    { verdict: "deny", step: 11 },
  ],
  ["an interactive exec without shortcuts asks", exec(), QUEUED, {}, {}, { verdict: "ask", step: 11 }],
];

describe("ApprovalGate.check, step by step", () => {
  it.each(CASES)("%s", async (_name, c, ctx, config, ports, expected) => {
    const decision = await new ApprovalGate({ ...GATE_CONFIG, ...config }, ports).check(c, ctx);
    expect({ verdict: decision.verdict, step: decision.step }).toEqual({
      verdict: expected.verdict,
      step: expected.step,
    });
    expect(decision.risk).toBe(c.risk);
    if (expected.source) expect(decision.approvalSource).toBe(expected.source);
    expect(decision.reason.length).toBeGreaterThan(5);
  });

  it("has at least 60 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });
});

describe("human approval", () => {
  const gate = new ApprovalGate(GATE_CONFIG);

  it("allows the exact approved call with approval source human", async () => {
    const c = exec();
    const decision = await gate.check(c, QUEUED, {
      humanApproval: { approver: "bob", tool: "exec", argsHash: c.argsHash },
    });
    expect(decision).toMatchObject({ verdict: "allow", step: 11, approvalSource: "human" });
    expect(decision.reason).toContain("bob");
  });

  it("does not carry an approval over to changed arguments", async () => {
    const approved = exec();
    const changed = exec(NO_FINDINGS, "make deploy");
    const decision = await gate.check(changed, QUEUED, {
      humanApproval: { approver: "bob", tool: "exec", argsHash: approved.argsHash },
    });
    expect(decision.verdict).toBe("ask");
  });

  it("never lets an approval lift a hard guard denial or an unattended dangerous call", async () => {
    const hard = exec(HARD);
    expect(
      (
        await gate.check(hard, QUEUED, {
          humanApproval: { approver: "bob", tool: "exec", argsHash: hard.argsHash },
        })
      ).verdict,
    ).toBe("deny");
    expect(
      (
        await gate.check(cronjob, CRON, {
          humanApproval: { approver: "bob", tool: "cronjob", argsHash: cronjob.argsHash },
        })
      ).verdict,
    ).toBe("deny");
  });

  it("records approval source auto for every policy allow", async () => {
    for (const [c, ctx, config] of [
      [readFile, INTERACTIVE, {}],
      [exec(), QUEUED, { autoApprove: ["exec"] }],
      [exec(), INTERACTIVE, { cliAutoApprove: true }],
    ] as const) {
      const d = await new ApprovalGate({ ...GATE_CONFIG, ...config }).check(c, ctx);
      expect(d).toMatchObject({ verdict: "allow", approvalSource: "auto" });
    }
  });
});

describe("step 4's reasons state the cron grant as it is", () => {
  const allowSafe = new ApprovalGate({ ...GATE_CONFIG, unattendedPolicy: "allow_safe" });
  const deny = new ApprovalGate({ ...GATE_CONFIG, unattendedPolicy: "deny" });

  it("a schedule with a grant: its grant covers only unflagged calls, this one is flagged", async () => {
    for (const gate of [allowSafe, deny]) {
      const decision = await gate.check(exec(SOFT), CRON);
      expect(decision.reason).toContain("the schedule's cron grant covers only unflagged calls");
      expect(decision.reason).not.toContain("without a cron grant");
      expect(decision.reason).not.toContain("no cron grant");
    }
  });

  it("a schedule without a grant says it holds none", async () => {
    const asked = await allowSafe.check(exec(), CRON_UNAUTHORISED);
    expect(asked.verdict).toBe("ask");
    expect(asked.reason).toContain("its schedule holds no cron grant, and the call is not judged safe");
    const denied = await deny.check(writeFile, CRON_UNAUTHORISED);
    expect(denied.verdict).toBe("deny");
    expect(denied.reason).toContain("its schedule holds no cron grant");
  });
});

describe("step 4 names the tool it lets through under a cron grant", () => {
  it("labels a delegate_task by its name and risk, not as an exec call", async () => {
    const decision = await new ApprovalGate(GATE_CONFIG).check(call("delegate_task", "exec"), CRON);
    expect(decision).toMatchObject({ verdict: "allow", step: 4 });
    expect(decision.reason).toBe(
      '"delegate_task" (exec risk) of a cron-authorised schedule, nothing flagged',
    );
  });
});

describe("callFindings", () => {
  it("lists the findings that flag a call as ids, never a reason in words", () => {
    expect(callFindings(exec(SOFT))).toEqual(["soft.recursive-delete"]);
    expect(callFindings({ ...exec(SOFT), toolPermission: { behavior: "ask", reason: "x" } })).toEqual([
      "soft.recursive-delete",
      "tool.check",
    ]);
    expect(callFindings(exec(NO_FINDINGS))).toEqual([]);
    expect(callFindings(exec(HARD))).toEqual([]);
  });
});
