import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { AgentConfigSchema, type AgentEntry, type EchoRunnerConfig } from "../../../config/index.js";
import { CATCH_UP_POLICIES, OVERLAP_POLICIES, type ScheduleInput } from "../../../scheduler/index.js";
import { type DeepReadonly, RunnerError } from "../../../shared/index.js";
import { agentSpecOf } from "./schedules-shared.js";

/**
 * A schedule in a file for `schedules add --file`: the config's `schedules[]` entry shape
 * (snake_case), except that `agent` may be the name of a config agent or an inline agent, the
 * policies have the documented defaults, `owner` defaults to the operator, and `authorized` is not
 * accepted (authorisation comes only from the config file or a human-approved cronjob call).
 */
const FileSchedule = z.strictObject({
  id: z.string().min(1),
  cron: z.string().min(1),
  timezone: z.string().min(1),
  agent: z.union([z.string().min(1), AgentConfigSchema]),
  overlap: z.enum(OVERLAP_POLICIES).optional(),
  catch_up: z.enum(CATCH_UP_POLICIES).optional(),
  catch_up_max: z.number().int().positive().optional(),
  jitter_seconds: z.number().int().nonnegative().optional(),
  enabled: z.boolean().optional(),
  owner: z.string().min(1).optional(),
});

/** Reads the schedules of an add file (one mapping, or a list of them). */
export async function readScheduleFile(
  path: string,
  cwd: string,
  config: DeepReadonly<EchoRunnerConfig>,
  operator: () => string,
): Promise<ScheduleInput[]> {
  const file = resolve(cwd, path);
  let data: unknown;
  try {
    data = parse(await readFile(file, "utf8"));
  } catch (cause) {
    throw new RunnerError("CLI_USAGE", `cannot read schedule file ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const items = Array.isArray(data) ? data : [data];
  return items.map((item, i) => {
    const where = Array.isArray(data) ? `${file}[${i}]` : file;
    if (item && typeof item === "object" && "authorized" in item) {
      throw new RunnerError(
        "SCHEDULE_INVALID",
        `${where}: authorized: a schedule added from the CLI cannot carry an authorisation; list it in the config file's schedules with authorized: true, or create it through a cronjob call a person approves`,
        { data: { field: "authorized" } },
      );
    }
    const result = FileSchedule.safeParse(item);
    if (!result.success) {
      const problems = result.error.issues.map(
        (issue) => `${issue.path.join(".") || "(schedule)"}: ${issue.message}`,
      );
      throw new RunnerError("SCHEDULE_INVALID", `${where}: ${problems.join("; ")}`, {
        data: { field: result.error.issues[0]?.path.join("."), problems },
      });
    }
    const entry = result.data;
    let agent: DeepReadonly<AgentEntry>;
    if (typeof entry.agent === "string") {
      const named = config.agents[entry.agent];
      if (!named) {
        throw new RunnerError(
          "SCHEDULE_INVALID",
          `${where}: agent: no agent "${entry.agent}" in the config's agents (defined: ${Object.keys(config.agents).join(", ") || "none"})`,
          { data: { field: "agent", value: entry.agent } },
        );
      }
      agent = named;
    } else agent = entry.agent;
    return {
      v: 1,
      id: entry.id,
      cron: entry.cron,
      timezone: entry.timezone,
      agent: agentSpecOf(agent, config.execution.max_steps, cwd),
      ...(entry.overlap ? { overlap: entry.overlap } : {}),
      ...(entry.catch_up ? { catchUp: entry.catch_up } : {}),
      ...(entry.catch_up_max === undefined ? {} : { catchUpMax: entry.catch_up_max }),
      ...(entry.jitter_seconds === undefined ? {} : { jitterSeconds: entry.jitter_seconds }),
      ...(entry.enabled === undefined ? {} : { enabled: entry.enabled }),
      owner: entry.owner ?? operator(),
      source: { kind: "cli", file },
    };
  });
}
