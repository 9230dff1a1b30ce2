import { toolFailure } from "../../catalog/index.js";
import type { BuiltinToolLimits } from "../builtin-runtime.js";

/** The longest command string accepted (the command guard's own limit). */
export const MAX_COMMAND_CHARS = 100_000;

/** The timeout of one call in seconds, or a `validation` failure naming `timeout_seconds`. */
export function resolveTimeout(
  limits: BuiltinToolLimits,
  requested: number | undefined,
): { ok: true; seconds: number } | { ok: false; result: ReturnType<typeof toolFailure> } {
  const seconds = requested ?? limits.execDefaultTimeoutSeconds;
  if (seconds > limits.execMaxTimeoutSeconds) {
    return {
      ok: false,
      result: toolFailure(
        "validation",
        `timeout_seconds must be at most ${limits.execMaxTimeoutSeconds}, got ${seconds}`,
        {
          fields: [{ field: "timeout_seconds", problem: `must be <= ${limits.execMaxTimeoutSeconds}` }],
        },
      ),
    };
  }
  return { ok: true, seconds };
}

/**
 * The tool-level timeout of exec-class tools: longer than the longest call may ask for plus the
 * kill grace, so the tool's own group kill always happens before the run loop gives up on it.
 */
export function execToolTimeoutSeconds(limits: BuiltinToolLimits): number {
  return limits.execMaxTimeoutSeconds + Math.ceil(limits.killGraceMs / 1000) + 5;
}
