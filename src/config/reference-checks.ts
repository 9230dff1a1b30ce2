import type { z } from "zod";
import { addConfigIssue } from "./config-issue.js";
import { checkSafeBins } from "./safe-bin-checks.js";
import { checkToolNames, type ToolNameLists } from "./tool-name-checks.js";

/**
 * What the cross-reference checks read of a parsed config: only the keys that name something
 * defined elsewhere in it (kept structural so this file does not import schema.ts, which calls it).
 */
export interface ReferencedConfig extends ToolNameLists {
  readonly models: Readonly<Record<string, unknown>>;
  readonly agents: Readonly<Record<string, ToolNameLists["agents"][string] & { readonly model: string }>>;
  readonly permissions: ToolNameLists["permissions"] & {
    readonly approval: ToolNameLists["permissions"]["approval"] & { readonly smart_model: string };
  };
  readonly tools: ToolNameLists["tools"] & {
    readonly exec: { readonly safe_bins: Readonly<Record<string, object>> };
  };
}

/** `(defined: a, b)` or `(none is defined)`: what a reference may name. */
export function definedKeys(keys: readonly string[]): string {
  return keys.length === 0 ? "(none is defined)" : `(defined: ${keys.join(", ")})`;
}

/**
 * Every key that names another part of the config must name one that exists, so a typo fails
 * `config check`, `doctor` and `start` (which all load the config) instead of the run that fires at
 * 02:00. Each problem is its own issue, so all of them are reported at once. A schedule's agent is
 * checked with its cron and zone by the CLI's config-schedules.ts (`schedules[i] (id …).agent`).
 */
export function checkConfigReferences(config: ReferencedConfig, ctx: z.RefinementCtx): void {
  const models = Object.keys(config.models);
  for (const [name, agent] of Object.entries(config.agents)) {
    if (!(agent.model in config.models)) {
      addConfigIssue(
        ctx,
        ["agents", name, "model"],
        agent.model,
        `is not a model in models ${definedKeys(models)}`,
      );
    }
  }
  const smart = config.permissions.approval.smart_model;
  if (smart !== "" && !(smart in config.models)) {
    addConfigIssue(
      ctx,
      ["permissions", "approval", "smart_model"],
      smart,
      `is not a model in models ${definedKeys(models)}; "" for no smart approval`,
    );
  }
  checkToolNames(config, ctx);
  checkSafeBins(config.tools.exec.safe_bins, ctx);
}
