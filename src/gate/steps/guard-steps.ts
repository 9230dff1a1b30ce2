import { isExecClassTool } from "../../catalog/index.js";
import { type GateState, type GateStep, NEXT } from "../step.js";

/** Exec-class call (exec, execute_code, process: the catalog's execClass tools). */
export function isExecClass(tool: string): boolean {
  return isExecClassTool(tool);
}

/**
 * Step 1: the static guard. A guard deny is final (no approval lifts it); a guard ask, the tool's
 * own ask, `tools.exec.ask: always` and a session in ask mode flag the call, so it cannot pass
 * steps 4–8 automatically.
 */
export const staticGuardStep: GateStep = {
  name: "static_guard",
  run(state: GateState) {
    const { call, config } = state;
    if (call.guard?.verdict === "deny") return { verdict: "deny", reason: call.guard.reason };
    if (call.toolPermission?.behavior === "deny")
      return { verdict: "deny", reason: call.toolPermission.reason };
    if (isExecClass(call.tool) && (config.execSecurity === "deny" || config.sessionExecMode === "deny")) {
      return {
        verdict: "deny",
        reason: `Tool "${call.tool}" cannot run: command execution is off (tools.exec.security=${config.execSecurity}, session exec mode ${config.sessionExecMode})`,
      };
    }
    if (call.guard?.verdict === "ask") state.flags.push(call.guard.reason);
    if (call.toolPermission?.behavior === "ask") state.flags.push(call.toolPermission.reason);
    if (isExecClass(call.tool) && config.execAsk === "always") {
      state.flags.push("tools.exec.ask is always: every command needs a person");
      state.forceHuman = true;
    }
    if (isExecClass(call.tool) && config.sessionExecMode === "ask") {
      state.flags.push("the session's permission mode (guarded) asks before every command");
      state.forceHuman = true;
    }
    return NEXT;
  },
};

/** Whether the run's source may elevate: admin users always; else `allow_from` per channel or "*". */
export function isElevatedSource(state: GateState): boolean {
  const { ctx, config } = state;
  // A child run never holds elevation of its own: it cannot gain what its parent may lack.
  if (ctx.parentExecutionId !== null) return false;
  if (config.adminUsers.includes(ctx.userId)) return true;
  const allowFrom = config.elevated.allowFrom;
  for (const channel of [ctx.channel, "*"]) {
    const users = allowFrom[channel];
    if (users && (users.includes("*") || users.includes(ctx.userId))) return true;
  }
  return false;
}

/**
 * Step 2: elevation (seed 000). With `permissions.elevated.enabled`, an exec-class call needs an
 * elevated source. The seed exempts a sandbox host unless `tools.exec.security` is full; we do not:
 * with that exemption, tightening exec security from full to allowlist on a sandbox would drop the
 * elevation requirement and let more through, and a tightening must never allow more (the property
 * test checks it). With the mechanism disabled this step passes every call on and the later steps
 * decide. Other tools never need elevation.
 */
export const elevationStep: GateStep = {
  name: "elevation",
  run(state) {
    const { call, config, ctx } = state;
    if (!config.elevated.enabled || !isExecClass(call.tool)) return NEXT;
    if (isElevatedSource(state)) return NEXT;
    const who =
      ctx.parentExecutionId !== null ? "a child run" : `user "${ctx.userId}" on channel "${ctx.channel}"`;
    return {
      verdict: "deny",
      reason: `Tool "${call.tool}" runs on the ${config.execHost} host and needs an elevated source; ${who} is not in permissions.elevated.allow_from or permissions.admin_users`,
    };
  },
};

/** Step 3: risk classification. The risk was classified before the gate (max of every source); recorded here. */
export const riskStep: GateStep = {
  name: "risk",
  run: () => NEXT,
};
