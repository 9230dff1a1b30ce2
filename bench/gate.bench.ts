/**
 * Gate + policy decision time per call, against an empty function loop measured in the same run.
 * Standalone: `node bin/run-ts.js bench/gate.bench.ts`; from the runner: {@link runGateBench}.
 */
import { performance } from "node:perf_hooks";
import { describeCatalogTool, TOOL_CATALOG, type ToolDescriptor } from "../src/catalog/index.js";
import { ApprovalGate, type GateCall, type GateConfig, type GateContext } from "../src/gate/index.js";
import { checkToolCall, resolveToolPolicy, type ToolPolicyInput } from "../src/policy/index.js";

export interface GateBenchResult {
  calls: number;
  medianUs: number;
  p99Us: number;
  baselineMedianUs: number;
  /** Decision median / baseline median. */
  ratio: number;
}

const CONFIG: GateConfig = {
  autoApprove: ["exec"],
  trustedChannels: ["telegram"],
  cliAutoApprove: false,
  mode: "strict",
  unattendedPolicy: "allow_safe",
  smartModelConfigured: false,
  elevated: { enabled: true, allowFrom: { "*": ["ann"] } },
  adminUsers: [],
  execSecurity: "allowlist",
  execAsk: "on-miss",
  execHost: "local",
  sessionExecMode: "auto",
};
const CTX: GateContext = {
  unattended: true,
  cronAuthorized: true,
  channel: "cron",
  userId: "ann",
  agentId: "nightly",
  parentExecutionId: null,
  interactive: false,
};
const READY = { ready: true, enabled: true, detail: "ready" };

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** Times `calls` decisions (policy check of one call + the 11 gate steps), one sample per call. */
export async function runGateBench(calls = 20_000): Promise<GateBenchResult> {
  const tools = TOOL_CATALOG.map((e) => describeCatalogTool(e.name, READY) as ToolDescriptor);
  const input: ToolPolicyInput = {
    tools,
    profile: "full",
    lists: [{ label: "config", deny: ["skill_install"] }],
    securityProfile: "personal_cli",
    networkPolicy: "restricted",
    allowedHosts: ["example.com"],
    sessionMode: "workspace",
    restrictToWorkspace: true,
    jobSubsets: [],
    deferred: [],
  };
  const resolution = resolveToolPolicy(input);
  const gate = new ApprovalGate(CONFIG);
  const samples = [
    { tool: "read_file", args: { path: "notes.txt" } },
    { tool: "write_file", args: { path: "report.md", content: "x" } },
    { tool: "exec", args: { command: "wc -l notes.txt" } },
    { tool: "cronjob", args: { action: "create" } },
  ];
  const decide = async (i: number) => {
    const s = samples[i % samples.length] as (typeof samples)[number];
    const policy = checkToolCall(resolution, s.tool, s.args);
    const call: GateCall = {
      tool: s.tool,
      args: s.args,
      risk: policy.risk.level,
      argsHash: "h",
      guard: { verdict: "allow", rule: "allow.no-findings", reason: "", safeBins: s.tool === "exec" },
    };
    return gate.check(call, CTX);
  };
  const empty = async (_i: number) => undefined;
  const time = async (fn: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 2000; i++) await fn(i);
    const out: number[] = [];
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      await fn(i);
      out.push((performance.now() - start) * 1000);
    }
    return out.sort((a, b) => a - b);
  };
  const baseline = await time(empty);
  const decisions = await time(decide);
  const medianUs = percentile(decisions, 0.5);
  const baselineMedianUs = percentile(baseline, 0.5);
  return {
    calls,
    medianUs,
    p99Us: percentile(decisions, 0.99),
    baselineMedianUs,
    ratio: medianUs / Math.max(baselineMedianUs, 0.001),
  };
}

export function formatGateBench(r: GateBenchResult): string {
  return [
    `gate + policy decision: median ${r.medianUs.toFixed(1)} µs, p99 ${r.p99Us.toFixed(1)} µs over ${r.calls} calls (target median ≤ 20 µs)`,
    `  baseline (empty async function): median ${r.baselineMedianUs.toFixed(2)} µs; ratio ${r.ratio.toFixed(1)}x`,
  ].join("\n");
}

setImmediate(() => {
  if (process.env.ECHO_BENCH_RUNNER === "1") return;
  runGateBench()
    .then((r) => console.log(formatGateBench(r)))
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
});
