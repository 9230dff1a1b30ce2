import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import type { CallGuard } from "../../../agent/index.js";
import type { LoadedConfig } from "../../../config/index.js";
import {
  ApprovalGate,
  type GateContext,
  type GateDecision,
  type GateStepTrace,
} from "../../../gate/index.js";
import { checkToolCall, resolveToolPolicy, SESSION_PERMISSION_MODES } from "../../../policy/index.js";
import { callGuardFromConfig, effectiveSessionMode, gateConfigFromConfig } from "../../../runtime/index.js";
import { hashCanonical, RunnerError } from "../../../shared/index.js";
import { createToolExecutionContext } from "../../../tools/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";
import { explainInputFromConfig } from "./explain-input.js";

/** The ToolExecutionContext fields that matter to the gate (omitted: an interactive CLI call). */
export const GateCheckContext = z.strictObject({
  unattended: z.boolean().optional(),
  cronAuthorized: z.boolean().optional(),
  channel: z.string().min(1).optional(),
  userId: z.string().min(1).optional(),
  agentId: z.string().min(1).optional(),
  parentExecutionId: z.string().min(1).nullable().optional(),
  scheduleId: z.string().min(1).optional(),
  interactive: z.boolean().optional(),
  workspace: z.string().min(1).optional(),
  sessionMode: z.enum(SESSION_PERMISSION_MODES).optional(),
});
export type GateCheckContext = z.infer<typeof GateCheckContext>;

/** One request: a tool, its arguments and the gate's context. */
const GateCheckRequest = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  ctx: GateCheckContext.default({}),
});
type GateCheckRequest = z.input<typeof GateCheckRequest>;

/**
 * The whole pipeline a real call meets, for one request: policy layers (a removed tool is denied,
 * naming the layer), guard, then the 11 gate steps. Omitted context fields take the values of an
 * interactive CLI call. Argument validation is not part of it (there are no implementations here).
 */
export async function checkOneCall(
  request: GateCheckRequest,
  loaded: Pick<LoadedConfig, "config" | "origins">,
  guard: CallGuard,
  cwd: string,
): Promise<GateDecision & { tool: string; layer?: string; steps?: GateStepTrace[] }> {
  const { config } = loaded;
  const c = request.ctx ?? {};
  const args = request.args ?? {};
  const sessionMode = effectiveSessionMode(config, c.sessionMode);
  const resolution = resolveToolPolicy(explainInputFromConfig(loaded, { tool: request.tool, sessionMode }));
  const policy = checkToolCall(resolution, request.tool, args);
  if (!policy.allowed) {
    return {
      tool: request.tool,
      verdict: "deny",
      step: 0,
      stepName: "policy",
      reason: policy.removedBy?.reason ?? "removed by a policy layer",
      risk: policy.risk.level,
      flagged: false,
      approvalSource: "auto",
      ...(policy.removedBy ? { layer: policy.removedBy.label } : {}),
    };
  }
  const gateCtx: GateContext = {
    unattended: c.unattended ?? false,
    cronAuthorized: c.cronAuthorized ?? false,
    channel: c.channel ?? "cli",
    userId: c.userId ?? "cli-user",
    agentId: c.agentId ?? "cli",
    parentExecutionId: c.parentExecutionId ?? null,
    interactive: c.interactive ?? !(c.unattended ?? false),
    scheduleId: c.scheduleId,
  };
  const ctx = createToolExecutionContext({
    executionId: "gate-check",
    traceId: "gate-check",
    sessionKey: "gate-check",
    userId: gateCtx.userId,
    agentId: gateCtx.agentId,
    call: { toolName: request.tool, callIndex: 0, params: args },
    allowedTools: resolution.allowed,
    channel: gateCtx.channel,
    unattended: gateCtx.unattended,
    parentExecutionId: gateCtx.parentExecutionId,
    workspace: resolve(cwd, c.workspace ?? "."),
    workspaceOnly: resolution.fence.workspaceOnly,
  });
  const assessment = await guard.assess(request.tool, args, ctx);
  const gate = new ApprovalGate(gateConfigFromConfig(config, sessionMode));
  const { decision, steps } = await gate.explain(
    {
      tool: request.tool,
      args,
      risk: policy.risk.level,
      argsHash: hashCanonical(args),
      ...(assessment ? { guard: assessment } : {}),
    },
    gateCtx,
  );
  // Step 1 passes on silently; say what the guard found there (the sandbox's containment included).
  const traced = assessment
    ? steps.map((s) =>
        s.step === 1 && s.verdict === "next" ? { ...s, reason: `passed on; guard: ${assessment.reason}` } : s,
      )
    : steps;
  const reason =
    assessment?.rule === "exec.sandbox-contained" && decision.verdict === "allow"
      ? `${decision.reason}; guard: ${assessment.reason}`
      : decision.reason;
  return {
    tool: request.tool,
    ...decision,
    reason,
    ...(assessment ? { guard: { rule: assessment.rule, reason: assessment.reason } } : {}),
    steps: traced,
  };
}

function parseRequest(text: string, where: string): GateCheckRequest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RunnerError("CLI_USAGE", `${where} is not valid JSON`);
  }
  const parsed = GateCheckRequest.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(request)"}: ${i.message}`)
      .join("; ");
    throw new RunnerError(
      "CLI_USAGE",
      `${where} is not a gate request ({"tool": .., "args": {..}, "ctx": {..}}): ${problems}`,
    );
  }
  return parsed.data;
}

function render(decision: Awaited<ReturnType<typeof checkOneCall>>): string {
  return `${decision.verdict.toUpperCase()} at step ${decision.step} (${decision.stepName}), risk ${decision.risk}${decision.flagged ? ", flagged" : ""}: ${decision.reason}\n`;
}

async function runBatch(io: CliIo, loaded: LoadedConfig, guard: CallGuard): Promise<number> {
  const lines = (await io.readStdin()).split("\n").filter((l) => l.trim() !== "");
  for (const [i, line] of lines.entries()) {
    try {
      io.stdout(
        `${JSON.stringify(await checkOneCall(parseRequest(line, `line ${i + 1}`), loaded, guard, io.cwd))}\n`,
      );
    } catch (err) {
      io.stdout(`${JSON.stringify({ error: err instanceof Error ? err.message : String(err) })}\n`);
    }
  }
  return EXIT.ok;
}

/** `echo-runner gate check`: what the policy layers, the guard and the gate decide for one call. */
export const gateCheckCommand: CliCommand = {
  words: ["gate", "check"],
  summary: "decide one tool call through the policy layers, the guard and the 11 gate steps",
  usage:
    'echo-runner gate check --json \'{"tool": "exec", "args": {"command": "ls"}, "ctx": {"unattended": true}}\' [--config FILE]\n' +
    "       echo-runner gate check --batch [--config FILE] < requests.jsonl   (one decision per line, in order)\n" +
    "  exit 0 allow, 1 deny or ask (single request), 2 usage or config error",
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        json: { type: "string" },
        batch: { type: "boolean", default: false },
        config: { type: "string" },
      },
      allowPositionals: false,
    });
    if ((values.json === undefined) === !values.batch) {
      throw new RunnerError("CLI_USAGE", "give exactly one of --json REQUEST or --batch");
    }
    const loaded = await loadCliConfig(io, values.config);
    const guard = await callGuardFromConfig(loaded.config, { env: io.env, protectedPaths: [] });
    if (values.batch) return runBatch(io, loaded, guard);
    const decision = await checkOneCall(parseRequest(values.json ?? "", "--json"), loaded, guard, io.cwd);
    io.stdout(`${JSON.stringify(decision)}\n`);
    io.stderr(render(decision));
    return decision.verdict === "allow" ? EXIT.ok : EXIT.failed;
  },
};
