import { type Static, Type } from "typebox";
import {
  defineTool,
  type Tool,
  type ToolExecutionContext,
  type ToolFailure,
  type ToolResult,
  toolFailure,
  toolSuccess,
} from "../catalog/index.js";
import { assertNever, isRunnerError } from "../shared/index.js";
import {
  CATCH_UP_POLICIES,
  MAX_CATCH_UP,
  OVERLAP_POLICIES,
  SCHEDULE_ID_PATTERN,
  type ScheduleInput,
} from "./schedule.js";
import type { CronjobApproval } from "./schedule-changes.js";
import type { SchedulePatch, ScheduleService, ScheduleView } from "./schedule-service.js";

/** What the `cronjob` tool does (seed 000: create and manage scheduled jobs). */
export const CRONJOB_ACTIONS = ["create", "list", "update", "pause", "delete"] as const;
export type CronjobAction = (typeof CRONJOB_ACTIONS)[number];

const CronjobParams = Type.Object(
  {
    action: Type.Enum(CRONJOB_ACTIONS, {
      description:
        "create a schedule, list yours, update one (resume it with enabled: true), pause or delete one",
    }),
    id: Type.Optional(
      Type.String({
        pattern: SCHEDULE_ID_PATTERN.source,
        description: "The schedule's id: letters, digits, _ . - (1-64); required except for list",
      }),
    ),
    cron: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Cron expression: 5 fields (minute first) or 6 (seconds first); required for create",
      }),
    ),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "IANA time zone, e.g. Europe/Berlin (default UTC)",
      }),
    ),
    task: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100_000,
        description: "What each run does; required for create",
      }),
    ),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    max_steps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: "Model turns per run (default 20)" }),
    ),
    allowed_tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 200,
        description: "Tools the runs may use: a subset of yours (default: all of yours)",
      }),
    ),
    overlap: Type.Optional(
      Type.Enum(OVERLAP_POLICIES, {
        description: "A tick while the previous run is active: skip (default), queue, allow",
      }),
    ),
    catch_up: Type.Optional(
      Type.Enum(CATCH_UP_POLICIES, {
        description: "Ticks missed during downtime: none, latest (default), all",
      }),
    ),
    catch_up_max: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CATCH_UP })),
    jitter_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
    enabled: Type.Optional(Type.Boolean({ description: "update: false pauses, true resumes" })),
  },
  { additionalProperties: false },
);
type CronjobArgs = Static<typeof CronjobParams>;

/** The arguments an update may change. */
const UPDATABLE = [
  "cron",
  "timezone",
  "task",
  "model",
  "max_steps",
  "allowed_tools",
  "overlap",
  "catch_up",
  "catch_up_max",
  "jitter_seconds",
  "enabled",
] as const;

/** Default model turns of a scheduled run. */
const DEFAULT_MAX_STEPS = 20;

/** What the `cronjob` tool is bound to (the worker builds it from config and Redis). */
export interface CronjobToolDeps {
  /** The schedule API; undefined in a process without the schedule store (the tool is not ready). */
  schedules: ScheduleService | undefined;
  /**
   * Who approved this very call, read from the approval record of (run, idempotency key): the
   * context only says the source is `human`, and a grant must name the person.
   */
  approverOf(ctx: ToolExecutionContext): Promise<string | undefined>;
  /** Names of config `models` a schedule may name; with exactly one, `model` may be left out. */
  models: readonly string[];
}

/**
 * `cronjob` (dangerous): creates and manages the caller's schedules through the ScheduleService. A
 * create or a change is cron-authorised only when a person approved that very call
 * (ctx.approvalSource `human`, approver from the approval record); any other approval stores it
 * without a grant, and an unapproved change of the spec voids an existing grant. A run can only
 * touch its own user's schedules, never gives the runs more tools than it has itself, and the tool
 * refuses to run unattended even if something let it past the gate (which denies that at step 4).
 */
export function createCronjobTool(deps: CronjobToolDeps): Tool<typeof CronjobParams> {
  const readiness = () =>
    !deps.schedules
      ? { ready: false, detail: "cronjob: no schedule store is connected in this process" }
      : deps.models.length === 0
        ? { ready: false, detail: "cronjob: config models is empty, so a schedule could not name a model" }
        : {
            ready: true,
            detail: "ready: schedules are stored in Redis and fire while a scheduler part runs",
          };
  return defineTool({
    name: "cronjob",
    description:
      "Create and manage scheduled agent runs (cron + IANA time zone). A schedule runs with cron " +
      "authorisation only when a person approved the call that created or last changed it.",
    parameters: CronjobParams,
    riskLevel: "dangerous",
    timeoutSeconds: 30,
    readinessDetail: readiness,
    isReadOnly: (args) => args.action === "list",
    async execute(args, ctx) {
      const schedules = deps.schedules;
      if (!schedules || deps.models.length === 0) return toolFailure("not_ready", readiness().detail);
      if (ctx.unattended) {
        return toolFailure(
          "denied",
          "cronjob never runs unattended: an unattended run must not create or change schedules",
        );
      }
      try {
        return await runAction(schedules, deps, args, ctx);
      } catch (err) {
        return failureOf(err);
      }
    },
  });
}

async function runAction(
  schedules: ScheduleService,
  deps: CronjobToolDeps,
  args: CronjobArgs,
  ctx: ToolExecutionContext,
): Promise<ToolResult> {
  if (args.action === "list") {
    const mine = (await schedules.list()).filter((view) => view.schedule.owner === ctx.userId);
    const out = mine.map(summary);
    return toolSuccess(JSON.stringify(out, null, 2), { schedules: out });
  }
  if (!args.id) return missing(["id"], args.action);
  const id = args.id;
  switch (args.action) {
    case "create": {
      const absent = (["cron", "task"] as const).filter((field) => args[field] === undefined);
      if (absent.length > 0) return missing(absent, "create");
      const model = modelOf(deps, args.model);
      if (typeof model !== "string") return model;
      const tools = allowedToolsOf(args.allowed_tools, ctx);
      if (!Array.isArray(tools)) return tools;
      const approval = await approvalOf(deps, ctx);
      if ("success" in approval) return approval;
      const input: ScheduleInput = {
        v: 1,
        id,
        cron: args.cron!,
        timezone: args.timezone ?? "UTC",
        agent: {
          model,
          task: args.task!,
          maxSteps: args.max_steps ?? DEFAULT_MAX_STEPS,
          workspace: ctx.workspace,
          allowedTools: tools,
        },
        ...(args.overlap ? { overlap: args.overlap } : {}),
        ...(args.catch_up ? { catchUp: args.catch_up } : {}),
        ...(args.catch_up_max !== undefined ? { catchUpMax: args.catch_up_max } : {}),
        ...(args.jitter_seconds !== undefined ? { jitterSeconds: args.jitter_seconds } : {}),
        ...(args.enabled !== undefined ? { enabled: args.enabled } : {}),
        owner: ctx.userId,
        source: { kind: "cronjob", runId: ctx.executionId },
      };
      const view = await schedules.create(input, approval);
      return done(`created schedule "${id}"`, view);
    }
    case "update": {
      if (!UPDATABLE.some((field) => args[field] !== undefined)) {
        return toolFailure("validation", `cronjob: update needs at least one of ${UPDATABLE.join(", ")}`, {
          fields: [{ field: "", problem: "nothing to change" }],
        });
      }
      const previous = await ownSchedule(schedules, id, ctx);
      if ("success" in previous) return previous;
      const patch: SchedulePatch = {};
      if (args.cron !== undefined) patch.cron = args.cron;
      if (args.timezone !== undefined) patch.timezone = args.timezone;
      if (args.overlap !== undefined) patch.overlap = args.overlap;
      if (args.catch_up !== undefined) patch.catchUp = args.catch_up;
      if (args.catch_up_max !== undefined) patch.catchUpMax = args.catch_up_max;
      if (args.jitter_seconds !== undefined) patch.jitterSeconds = args.jitter_seconds;
      if (args.enabled !== undefined) patch.enabled = args.enabled;
      const agent = { ...previous.schedule.agent };
      let agentChanged = false;
      if (args.task !== undefined) [agent.task, agentChanged] = [args.task, true];
      if (args.max_steps !== undefined) [agent.maxSteps, agentChanged] = [args.max_steps, true];
      if (args.model !== undefined) {
        const model = modelOf(deps, args.model);
        if (typeof model !== "string") return model;
        [agent.model, agentChanged] = [model, true];
      }
      if (args.allowed_tools !== undefined) {
        const tools = allowedToolsOf(args.allowed_tools, ctx);
        if (!Array.isArray(tools)) return tools;
        [agent.allowedTools, agentChanged] = [tools, true];
      }
      if (agentChanged) patch.agent = agent;
      const approval = await approvalOf(deps, ctx);
      if ("success" in approval) return approval;
      const view = await schedules.update(id, patch, approval);
      return done(`updated schedule "${id}"`, view);
    }
    case "pause": {
      const previous = await ownSchedule(schedules, id, ctx);
      if ("success" in previous) return previous;
      const view = await schedules.pause(id, actorOf(ctx));
      return done(`paused schedule "${id}"`, view);
    }
    case "delete": {
      const previous = await ownSchedule(schedules, id, ctx);
      if ("success" in previous) return previous;
      await schedules.delete(id);
      return toolSuccess(`deleted schedule "${id}"`, { deleted: id });
    }
    default:
      return assertNever(args.action, "cronjob action");
  }
}

/** How this call was approved, for the service: only `human` with a named approver grants. */
async function approvalOf(
  deps: CronjobToolDeps,
  ctx: ToolExecutionContext,
): Promise<CronjobApproval | ToolFailure> {
  if (ctx.approvalSource !== "human") return { approvalSource: ctx.approvalSource, actor: actorOf(ctx) };
  const approver = await deps.approverOf(ctx);
  if (!approver) {
    return toolFailure(
      "internal",
      "cronjob: the call is marked as approved by a person, but no approval record names them; nothing was changed",
    );
  }
  return { approvalSource: "human", approver, actor: approver };
}

function actorOf(ctx: ToolExecutionContext): string {
  return `run ${ctx.executionId}`;
}

/** The schedule, if it exists and belongs to the calling run's user. */
async function ownSchedule(
  schedules: ScheduleService,
  id: string,
  ctx: ToolExecutionContext,
): Promise<ScheduleView | ToolFailure> {
  const view = await schedules.get(id);
  if (!view) return toolFailure("business", `cronjob: no schedule "${id}" (list shows yours)`);
  if (view.schedule.source.kind === "config") {
    return toolFailure(
      "denied",
      `cronjob: schedule "${id}" is defined in the operator's config file (${view.schedule.source.file}); only the file changes it`,
    );
  }
  if (view.schedule.owner !== ctx.userId) {
    return toolFailure(
      "denied",
      `cronjob: schedule "${id}" belongs to ${view.schedule.owner}; a run may change only its own user's schedules`,
    );
  }
  return view;
}

function modelOf(deps: CronjobToolDeps, model: string | undefined): string | ToolFailure {
  if (model === undefined) {
    if (deps.models.length === 1) return deps.models[0]!;
    return invalid("model", `is required: one of ${deps.models.join(", ")}`);
  }
  if (!deps.models.includes(model)) {
    return invalid("model", `"${model}" is not a configured model; allowed: ${deps.models.join(", ")}`);
  }
  return model;
}

/** The runs' tools: never more than the calling run has (no elevation through a schedule). */
function allowedToolsOf(
  requested: readonly string[] | undefined,
  ctx: ToolExecutionContext,
): string[] | ToolFailure {
  if (requested === undefined) return [...ctx.allowedTools].sort();
  const extra = requested.filter((tool) => !ctx.allowedTools.has(tool));
  if (extra.length > 0) {
    return invalid(
      "allowed_tools",
      `${extra.join(", ")} ${extra.length === 1 ? "is" : "are"} not among this run's tools; a schedule gets a subset of yours`,
    );
  }
  return [...new Set(requested)].sort();
}

function missing(fields: readonly string[], action: string): ToolFailure {
  const verb = fields.length === 1 ? "is" : "are";
  return toolFailure(
    "validation",
    `cronjob: ${fields.join(", ")} ${verb} required when action is "${action}"`,
    {
      fields: fields.map((field) => ({ field, problem: `is required when action is "${action}"` })),
    },
  );
}

function invalid(field: string, problem: string): ToolFailure {
  return toolFailure("validation", `cronjob: ${field} ${problem}`, { fields: [{ field, problem }] });
}

/** Schedule fields as the tool's arguments name them. */
const ARG_NAMES: Record<string, string> = {
  catchUp: "catch_up",
  catchUpMax: "catch_up_max",
  jitterSeconds: "jitter_seconds",
  "agent.task": "task",
  "agent.model": "model",
  "agent.maxSteps": "max_steps",
  "agent.allowedTools": "allowed_tools",
  "agent.workspace": "workspace",
};

/** A service error as a tool result: bad schedule fields are `validation` naming the argument. */
function failureOf(err: unknown): ToolFailure {
  if (!isRunnerError(err, "SCHEDULE_INVALID")) throw err;
  const data = (err.data ?? {}) as { field?: string; reply?: string };
  if (data.reply !== undefined) return toolFailure("business", `cronjob: ${err.message}`);
  const field = data.field ? (ARG_NAMES[data.field] ?? data.field) : "";
  let message = err.message;
  for (const [from, to] of Object.entries(ARG_NAMES)) message = message.replaceAll(`${from}:`, `${to}:`);
  return toolFailure("validation", `cronjob: ${message}`, { fields: [{ field, problem: message }] });
}

function summary(view: ScheduleView) {
  const s = view.schedule;
  return {
    id: s.id,
    cron: s.cron,
    timezone: s.timezone,
    enabled: s.enabled,
    task: s.agent.task,
    model: s.agent.model,
    owner: s.owner,
    next: view.nextTick === null ? null : new Date(view.nextTick).toISOString(),
    cronAuthorized: view.authorization.cronAuthorized,
    authorization: view.authorization.reason,
  };
}

function done(what: string, view: ScheduleView): ToolResult {
  const out = summary(view);
  const grant = out.cronAuthorized
    ? "its runs are cron-authorised"
    : `its runs are not cron-authorised (${out.authorization})`;
  return toolSuccess(`${what}; ${grant}\n${JSON.stringify(out, null, 2)}`, { schedule: out });
}
