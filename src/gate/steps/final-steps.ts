import { allowAlwaysMatches } from "../allow-always.js";
import { buildSmartPrompt, parseSmartReply } from "../smart-approval.js";
import { type GateStep, NEXT, type StepAnswer } from "../step.js";

function commandOf(args: Readonly<Record<string, unknown>>): string | undefined {
  const command = args.command;
  return typeof command === "string" ? command : undefined;
}

/**
 * Step 9: persistent allow-always records, matched on the tool plus the exact approved arguments (or
 * an operator's command pattern), within the run's scopes. Never for dangerous calls; not when a
 * setting demands a person for every call.
 */
export const allowAlwaysStep: GateStep = {
  name: "allow_always",
  async run(state): Promise<StepAnswer> {
    const { call, ctx, ports } = state;
    if (call.risk === "dangerous" || state.forceHuman || !ports.allowAlways) return NEXT;
    const scopes = [
      { scope: "agent" as const, scopeId: ctx.agentId },
      { scope: "user" as const, scopeId: ctx.userId },
      ...(ctx.scheduleId ? [{ scope: "schedule" as const, scopeId: ctx.scheduleId }] : []),
    ];
    const records = await ports.allowAlways.find(call.tool, scopes);
    const command = commandOf(call.args);
    const match = records.find((r) => allowAlwaysMatches(r, { ...call, command }));
    if (!match) return NEXT;
    return {
      verdict: "allow",
      reason: `allow-always ${match.id === undefined ? "record" : `grant ${match.id}`} by ${match.createdBy} (${match.scope} ${match.scopeId})`,
    };
  },
};

/**
 * Step 10: smart approval (mode smart, exec-level calls only). The model's one-word answer decides
 * approve / deny; anything else — escalate, an unparseable reply, a timeout, an HTTP error, an
 * over-long call — passes on to a person.
 */
export const smartApprovalStep: GateStep = {
  name: "smart_approval",
  async run(state): Promise<StepAnswer> {
    const { call, config, ports } = state;
    if (config.mode !== "smart" || !config.smartModelConfigured || !ports.smartApprover) return NEXT;
    if (call.risk !== "exec" || state.forceHuman) return NEXT;
    const prompt = buildSmartPrompt({
      tool: call.tool,
      args: call.args,
      risk: call.risk,
      reasons: state.flags,
    });
    if (!prompt) return NEXT;
    let reply: string;
    try {
      reply = await ports.smartApprover.ask(prompt);
    } catch {
      return NEXT;
    }
    const verdict = parseSmartReply(reply);
    if (verdict === "approve") return { verdict: "allow", reason: "smart approval answered APPROVE" };
    if (verdict === "deny") return { verdict: "deny", reason: "smart approval answered DENY" };
    return NEXT;
  },
};

/**
 * Step 11: a person. A nested call (a child run) is denied: nobody can answer a prompt inside it.
 * Otherwise a person's approval of this very call (same tool, same argument hash) allows it; without
 * one the answer is ask, and the caller parks the run until someone decides.
 */
export const humanStep: GateStep = {
  name: "human",
  run(state): StepAnswer {
    const { call, ctx, humanApproval } = state;
    if (ctx.parentExecutionId !== null) {
      return {
        verdict: "deny",
        reason: `Tool "${call.tool}" needs a person, and a child run cannot ask one`,
      };
    }
    if (humanApproval && humanApproval.tool === call.tool && humanApproval.argsHash === call.argsHash) {
      return { verdict: "allow", reason: `approved by ${humanApproval.approver}` };
    }
    const why = state.flags.length ? ` (${state.flags.join("; ")})` : "";
    return { verdict: "ask", reason: `Tool "${call.tool}" (${call.risk}) needs a person's approval${why}` };
  },
};
