import { parseArgs } from "node:util";
import {
  DEFAULT_RUN_LIST_LIMIT,
  MAX_RUN_LIST_LIMIT,
  RUN_END_OUTCOMES,
  RUN_OUTCOMES,
  RUN_STATE_FILTERS,
  type RunListFilter,
  type RunStateFilter,
  type RunSummary,
} from "../../../runs/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { terminalJson, terminalText } from "../../terminal-text.js";
import { parseSince, wholeNumberOption } from "../shared/index.js";
import { oneLine, openRuns, usageLine, when } from "./jobs-shared.js";

const USAGE = `echo-runner jobs list [--state ${RUN_STATE_FILTERS.join("|")}] [--outcome WORD|"failed: CODE"] [--schedule ID] [--agent NAME] [--owner ID] [--since 2h|ISO] [--until 2h|ISO] [--limit N] [--cursor C] [--config FILE] [--json]`;

function parseState(text: string | undefined): RunStateFilter | undefined {
  if (text === undefined) return undefined;
  if ((RUN_STATE_FILTERS as readonly string[]).includes(text)) return text as RunStateFilter;
  throw new RunnerError(
    "CLI_USAGE",
    `--state "${text}" is not a run state; allowed: ${RUN_STATE_FILTERS.join(", ")}`,
  );
}

function parseOutcome(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if ((RUN_OUTCOMES as readonly string[]).includes(text) || /^failed\s*:\s*\S+$/.test(text)) return text;
  throw new RunnerError(
    "CLI_USAGE",
    `--outcome "${text}" is not an outcome; allowed: ${RUN_OUTCOMES.join(", ")}, or "failed: <code>"`,
  );
}

const parseLimit = (text: string | undefined): number =>
  wholeNumberOption("--limit", text, { default: DEFAULT_RUN_LIST_LIMIT, min: 1, max: MAX_RUN_LIST_LIMIT });

function line(run: RunSummary): string {
  const parked = run.parkedApprovals.map(
    (a) => `waits for approval ${a.id} (${a.tool}, until ${when(a.deadline)})`,
  );
  const damaged = run.damagedApprovals.map((d) => `approval ${d.id} DAMAGED (${d.code})`);
  return [
    run.runId,
    run.outcomeText.padEnd(22),
    `agent ${run.agent ?? "?"}`,
    `created ${when(run.created)}`,
    run.finished === null ? `started ${when(run.started)}` : `finished ${when(run.finished)}`,
    ...parked,
    ...damaged,
    usageLine(run.usage),
    oneLine(run.detail, 80),
  ]
    .filter(Boolean)
    .join("  ");
}

/** The same command with the next page's cursor (any earlier `--cursor` dropped), quoted for a shell. */
function nextPageCommand(args: readonly string[], cursor: string): string {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--cursor") i++;
    else if (!arg.startsWith("--cursor=")) kept.push(arg);
  }
  const quoted = kept.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`));
  return ["echo-runner", "jobs", "list", ...quoted, "--cursor", cursor].join(" ");
}

/** `echo-runner jobs list`: agent runs, newest first, filtered, a page at a time. */
export const jobsListCommand: CliCommand = {
  words: ["jobs", "list"],
  summary: `list agent runs (newest first) by state, outcome (${RUN_END_OUTCOMES.join(", ")}), schedule, agent, owner and time, a page at a time`,
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        state: { type: "string" },
        outcome: { type: "string" },
        schedule: { type: "string" },
        agent: { type: "string" },
        owner: { type: "string" },
        since: { type: "string" },
        until: { type: "string" },
        limit: { type: "string" },
        cursor: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length > 0) {
      throw new RunnerError("CLI_USAGE", `unexpected argument "${positionals[0]}"; usage: ${USAGE}`);
    }
    const now = Date.now();
    const state = parseState(values.state);
    const outcome = parseOutcome(values.outcome);
    const filter: RunListFilter = {
      limit: parseLimit(values.limit),
      ...(state ? { state } : {}),
      ...(outcome ? { outcome } : {}),
      ...(values.schedule !== undefined ? { schedule: values.schedule } : {}),
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      ...(values.owner !== undefined ? { owner: values.owner } : {}),
      ...(values.since !== undefined ? { since: parseSince(values.since, now) } : {}),
      ...(values.until !== undefined ? { until: parseSince(values.until, now, "--until") } : {}),
      ...(values.cursor !== undefined ? { cursor: values.cursor } : {}),
    };
    const runs = await openRuns(io, values.config);
    try {
      const page = await runs.inspector.listRunPage(filter);
      if (values.json) {
        io.stdout(`${terminalJson({ runs: page.runs, next_cursor: page.nextCursor }, 2)}\n`);
        return EXIT.ok;
      }
      if (page.runs.length === 0) io.stdout(state ? `no runs in state ${state}\n` : "no runs\n");
      else io.stdout(terminalText(`${page.runs.map(line).join("\n")}\n`));
      if (page.nextCursor !== null) io.stdout(`next page: ${nextPageCommand(args, page.nextCursor)}\n`);
      return EXIT.ok;
    } finally {
      await runs.close();
    }
  },
};
