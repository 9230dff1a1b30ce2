import type { z } from "zod";
import { compileSafeBinProfile, type SafeBinProfileConfig } from "../guard/index.js";
import { isRunnerError } from "../shared/index.js";
import { addConfigIssue } from "./config-issue.js";

/**
 * Runs the guard's own compilation of every operator safe-bin profile (the one start-up runs), so
 * `config check` refuses what the guard would refuse (`awk`, a flag both allowed and denied, ...)
 * with the entry's key path, instead of leaving it to start.
 */
export function checkSafeBins(safeBins: Readonly<Record<string, object>>, ctx: z.RefinementCtx): void {
  for (const [bin, profile] of Object.entries(safeBins)) {
    try {
      compileSafeBinProfile(bin, profile as SafeBinProfileConfig);
    } catch (err) {
      if (!isRunnerError(err, "CONFIG_INVALID")) throw err;
      const prefix = `tools.exec.safe_bins.${bin}: `;
      const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
      addConfigIssue(
        ctx,
        ["tools", "exec", "safe_bins", bin],
        undefined,
        `${message} (see src/guard/SAFE_BINS.md)`,
      );
    }
  }
}
