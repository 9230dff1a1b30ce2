import { parseArgs } from "node:util";
import {
  explainTool,
  type GateExplanation,
  SESSION_PERMISSION_MODES,
  type SessionPermissionMode,
  type ToolExplanation,
} from "../../../policy/index.js";
import { callGuardFromConfig } from "../../../runtime/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";
import { explainInputFromConfig } from "./explain-input.js";
import { checkOneCall, GateCheckContext } from "./gate-check.js";

/** `echo-runner policy explain <tool>`: why a tool is or is not available, layer by layer. */
export const policyExplainCommand: CliCommand = {
  words: ["policy", "explain"],
  summary: "explain, layer by layer, why a tool is or is not available to an agent",
  usage:
    "echo-runner policy explain <tool> [--args JSON] [--ctx JSON] [--config FILE] [--mode read-only|guarded|workspace|full] [--json]\n" +
    "  --ctx    the gate's context (ToolExecutionContext fields: unattended, cronAuthorized, channel, userId, parentExecutionId, ...)\n" +
    "  --args   explain one call with these arguments (risk and capabilities derived from them)\n" +
    "  --mode   session permission mode; a run gets the stricter of this and execution.session_mode\n" +
    "  exit 0 when the tool is available, 1 when a layer removes it, 2 on a usage or config error",
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        args: { type: "string" },
        config: { type: "string" },
        mode: { type: "string" },
        ctx: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length !== 1) usage(`expected exactly one tool name, got ${positionals.length}`);
    const tool = positionals[0] as string;
    const sessionMode = parseMode(values.mode);
    const callArgs = values.args === undefined ? undefined : parseCallArgs(values.args);
    const loaded = await loadCliConfig(io, values.config);
    const input = explainInputFromConfig(loaded, { tool, ...(sessionMode ? { sessionMode } : {}) });
    const ctx = parseGateContext(values.ctx);
    const policyOnly = explainTool(input, tool, callArgs === undefined ? {} : { args: callArgs });
    let gate: GateExplanation;
    if (policyOnly.outcome === "removed") {
      gate = {
        evaluated: false,
        note: "a policy layer removes the tool, so the gate never sees its calls",
        steps: [],
      };
    } else {
      const guard = await callGuardFromConfig(loaded.config, { env: io.env, protectedPaths: [] });
      const traced = await checkOneCall(
        { tool, args: callArgs ?? {}, ctx: { ...ctx, ...(sessionMode ? { sessionMode } : {}) } },
        loaded,
        guard,
        io.cwd,
      );
      gate = {
        evaluated: true,
        note: `for ${callArgs === undefined ? "a call with no arguments" : "the given arguments"} in ${describeContext(ctx)}`,
        steps: traced.steps ?? [],
      };
    }
    const explanation = explainTool(input, tool, {
      ...(callArgs === undefined ? {} : { args: callArgs }),
      gate,
    });
    io.stdout(values.json ? `${JSON.stringify(explanation, null, 2)}\n` : renderExplanation(explanation));
    return explanation.outcome === "removed" ? EXIT.failed : EXIT.ok;
  },
};

/** The text form of an explanation. */
export function renderExplanation(e: ToolExplanation): string {
  const kind =
    e.kind === "catalog"
      ? `catalog tool, section ${e.section}`
      : e.kind === "external"
        ? "external tool"
        : "unknown tool";
  const risk = e.risk;
  const sources = [
    `static ${risk.staticRisk ?? "none"}`,
    `declared ${risk.declaredRisk ?? "none"}`,
    ...(e.forCall ? [`from arguments ${risk.argumentRisk ?? "none"}`] : []),
  ];
  const lines = [
    `Tool "${e.tool}" (${kind}${e.reserved ? ", reserved" : ""})${e.forCall ? " — for the given arguments" : ""}`,
    `  risk:         ${risk.level} (${sources.join(", ")})`,
    ...risk.reasons.map((r) => `                raised because ${r}`),
    `  capabilities: ${e.capabilities.length > 0 ? e.capabilities.join(", ") : "none"}`,
    `  profiles:     ${e.profiles.length > 0 ? e.profiles.join(", ") : "none"}`,
    `  session:      ${e.session.mode} (exec mode ${e.session.execMode})`,
    `  paths:        ${e.fence.workspaceOnly ? "workspace-only: file tools, exec's working directory and path operands" : "not fenced to the workspace"} (${e.fence.because})`,
    `  network:      ${e.network.policy}${e.network.policy === "restricted" ? ` (allowed hosts: ${e.network.allowedHosts.join(", ") || "none"})` : ""}`,
    "",
    "Layers:",
  ];
  const width = Math.max(...e.layers.map((l) => l.label.length));
  for (const layer of e.layers) {
    lines.push(`  ${layer.verdict.toUpperCase().padEnd(6)}  ${layer.label.padEnd(width)}  ${layer.reason}`);
  }
  lines.push("");
  lines.push(
    e.outcome === "removed"
      ? `Result: not available — removed by layer ${e.removedBy?.label}`
      : e.outcome === "deferred"
        ? "Result: available through tool_search (deferred)"
        : "Result: available (sent to the model)",
  );
  // The gate's steps come from the gate module's explain; until then its place says so.
  if (e.gate.evaluated) {
    lines.push("", "Approval gate:");
    for (const s of e.gate.steps)
      lines.push(`  ${String(s.step).padStart(2)} ${s.name}: ${s.verdict} — ${s.reason}`);
  } else {
    lines.push(`Approval gate: not evaluated (${e.gate.note})`);
  }
  return `${lines.join("\n")}\n`;
}

function parseGateContext(text: string | undefined): GateCheckContext {
  if (text === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    usage("--ctx must be a JSON object of ToolExecutionContext fields, e.g. '{\"unattended\": true}'");
  }
  const parsed = GateCheckContext.safeParse(json);
  if (!parsed.success) {
    usage(
      `--ctx: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(ctx)"}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data;
}

function describeContext(ctx: GateCheckContext): string {
  const parts = [ctx.unattended ? "an unattended run" : "an interactive CLI session"];
  if (ctx.cronAuthorized) parts.push("with a cron grant");
  if (ctx.parentExecutionId) parts.push("as a child run");
  if (ctx.channel) parts.push(`on channel ${ctx.channel}`);
  return parts.join(" ");
}

function parseMode(mode: string | undefined): SessionPermissionMode | undefined {
  if (mode === undefined) return undefined;
  if (!(SESSION_PERMISSION_MODES as readonly string[]).includes(mode)) {
    usage(`--mode must be one of ${SESSION_PERMISSION_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  }
  return mode as SessionPermissionMode;
}

function parseCallArgs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    usage(`--args is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    usage('--args must be a JSON object of the tool\'s arguments, e.g. \'{"command":"ls"}\'');
  }
  return value as Record<string, unknown>;
}

function usage(message: string): never {
  throw new RunnerError("CLI_USAGE", `${message}\nusage: ${policyExplainCommand.usage}`);
}
