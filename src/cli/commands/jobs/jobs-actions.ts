import { parseArgs } from "node:util";
import { RunOperations } from "../../../agent/index.js";
import { ApprovalStore } from "../../../approvals/index.js";
import { performRunAction, type RunAction, type RunActionReply } from "../../../http/index.js";
import {
  MAX_RUN_LIST_LIMIT,
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  RunInspector,
  type RunSummary,
} from "../../../runs/index.js";
import { approvalPolicyFromConfig } from "../../../runtime/index.js";
import { assertNever, isRunnerError, RunnerError } from "../../../shared/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { connectCliRedis, operatorIdentity, parseSince } from "../shared/index.js";

const FILTERS = "[--state S] [--schedule ID] [--agent NAME] [--since 2h|ISO] [--yes]";
const STATE_WORDS = [...new Set<string>([...RUN_STATE_FILTERS, ...RUN_OUTCOMES])];

const SUMMARIES: Readonly<Record<RunAction, string>> = {
  cancel:
    "cancel a waiting, running, parked or retry-scheduled run (its call in flight and processes are stopped, its approvals withdrawn); or every run the filters match",
  retry:
    "retry a failed or cancelled run from where it stopped (same run id and journal: completed calls are not repeated); or every run the filters match",
  rerun:
    "start a new run with a run's agent, task and schedule, linked to it; or every run the filters match",
};

const VERBS: Readonly<Record<RunAction, string>> = { cancel: "Cancel", retry: "Retry", rerun: "Rerun" };

function usage(action: RunAction): string {
  return `echo-runner jobs ${action} <run id> [--reason TEXT] [--config FILE] [--json]\n       echo-runner jobs ${action} ${FILTERS} [--reason TEXT] [--config FILE] [--json]`;
}

/** Whether a listed run matches the bulk filters. */
function matches(
  run: RunSummary,
  filters: { state?: string; schedule?: string; agent?: string; since?: number },
): boolean {
  if (filters.state !== undefined && run.state !== filters.state && run.outcome !== filters.state)
    return false;
  if (filters.schedule !== undefined && run.scheduleId !== filters.schedule) return false;
  if (filters.agent !== undefined && run.agent !== filters.agent) return false;
  if (filters.since !== undefined && run.created < filters.since) return false;
  return true;
}

function describe(reply: RunActionReply): string {
  switch (reply.action) {
    case "cancel": {
      const withdrawn = reply.withdrawn?.length ?? 0;
      const approvals = withdrawn > 0 ? `; ${withdrawn} approval request(s) withdrawn` : "";
      return reply.status === "cancelled"
        ? `cancelled ${reply.runId}${approvals}`
        : `cancel requested for ${reply.runId}: its worker is stopping it${approvals}`;
    }
    case "retry":
      return `retrying ${reply.runId} from its journal (completed calls are not repeated)`;
    case "rerun":
      return `rerun of ${reply.runId} started as ${reply.started}`;
    default:
      return assertNever(reply.action);
  }
}

async function confirmed(io: CliIo, question: string): Promise<boolean> {
  io.stdout(`${question} [y/N] `);
  const answer = (await io.readStdin()).split("\n")[0]?.trim().toLowerCase() ?? "";
  return answer === "y" || answer === "yes";
}

function actionCommand(action: RunAction): CliCommand {
  const USAGE = usage(action);
  return {
    words: ["jobs", action],
    summary: SUMMARIES[action],
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseArgs({
        args,
        options: {
          config: { type: "string" },
          reason: { type: "string", default: "" },
          state: { type: "string" },
          schedule: { type: "string" },
          agent: { type: "string" },
          since: { type: "string" },
          yes: { type: "boolean", default: false },
          json: { type: "boolean", default: false },
        },
        allowPositionals: true,
      });
      const bulk =
        values.state !== undefined ||
        values.schedule !== undefined ||
        values.agent !== undefined ||
        values.since !== undefined;
      if (positionals.length > 1 || (positionals.length === 1) === bulk) {
        throw new RunnerError(
          "CLI_USAGE",
          `give one run id, or filters (--state, --schedule, --agent, --since) for many, not both; usage: ${USAGE}`,
        );
      }
      if (values.state !== undefined && !STATE_WORDS.includes(values.state)) {
        throw new RunnerError(
          "CLI_USAGE",
          `--state "${values.state}" is not a run state or outcome; allowed: ${STATE_WORDS.join(", ")}`,
        );
      }
      const since = values.since === undefined ? undefined : parseSince(values.since, Date.now());
      const { loaded, redis, close } = await connectCliRedis(io, values.config);
      const { config } = loaded;
      const keyPrefix = config.redis.key_prefix;
      const approvals = new ApprovalStore({ redis, keyPrefix, policy: approvalPolicyFromConfig(config) });
      const operations = new RunOperations({ redis, keyPrefix, approvals });
      const inspector = new RunInspector({ redis, keyPrefix, approvals });
      try {
        const actor = { id: operatorIdentity(config, io.env), via: "cli" as const };
        let ids: string[];
        if (bulk) {
          const filters = {
            ...(values.state !== undefined ? { state: values.state } : {}),
            ...(values.schedule !== undefined ? { schedule: values.schedule } : {}),
            ...(values.agent !== undefined ? { agent: values.agent } : {}),
            ...(since !== undefined ? { since } : {}),
          };
          const listed = await inspector.listRuns({ limit: MAX_RUN_LIST_LIMIT });
          ids = listed.filter((run) => matches(run, filters)).map((run) => run.runId);
          if (ids.length === 0) {
            io.stdout("no run matches the filters; nothing done\n");
            return EXIT.ok;
          }
          if (!values.yes) {
            const ok = await confirmed(io, `${VERBS[action]} ${ids.length} run(s)?\n  ${ids.join("\n  ")}\n`);
            if (!ok) {
              io.stdout("not confirmed; nothing done (pass --yes to skip the question)\n");
              return EXIT.failed;
            }
          }
        } else {
          ids = [positionals[0] as string];
        }
        const replies: RunActionReply[] = [];
        const refusals: { runId: string; error: string; message: string }[] = [];
        for (const runId of ids) {
          try {
            replies.push(await performRunAction(operations, action, runId, actor, values.reason));
          } catch (err) {
            if (!isRunnerError(err) || (!bulk && ids.length === 1)) throw err;
            refusals.push({ runId, error: err.code, message: err.message });
          }
        }
        if (values.json) io.stdout(`${JSON.stringify({ done: replies, refused: refusals }, null, 2)}\n`);
        else {
          for (const reply of replies) io.stdout(`${describe(reply)}\n`);
          for (const r of refusals) io.stderr(`echo-runner: ${r.error}: ${r.message}\n`);
          if (bulk) io.stdout(`${replies.length} of ${ids.length} run(s) done\n`);
        }
        return refusals.length === 0 ? EXIT.ok : EXIT.failed;
      } finally {
        await inspector.close().catch(() => undefined);
        await operations.close().catch(() => undefined);
        await close();
      }
    },
  };
}

/** `echo-runner jobs cancel <id>` (or filters). */
export const jobsCancelCommand = actionCommand("cancel");
/** `echo-runner jobs retry <id>` (or filters). */
export const jobsRetryCommand = actionCommand("retry");
/** `echo-runner jobs rerun <id>` (or filters). */
export const jobsRerunCommand = actionCommand("rerun");
