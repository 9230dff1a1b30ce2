import type { z } from "zod";

/** Marks an issue whose message already names the value, so problems.ts prints it as written. */
export const VALUE_IN_MESSAGE = "valueInMessage";

/**
 * Adds a cross-key problem whose message reads on from the value (`"mian" is not a model in
 * models (defined: main)`), or names the entry itself when `value` is undefined.
 */
export function addConfigIssue(
  ctx: z.RefinementCtx,
  path: (string | number)[],
  value: unknown,
  message: string,
): void {
  const text = value === undefined ? message : `${JSON.stringify(value)} ${message}`;
  ctx.addIssue({ code: "custom", path, message: text, params: { [VALUE_IN_MESSAGE]: true } });
}
