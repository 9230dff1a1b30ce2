import { parseArgs } from "node:util";
import {
  DEFAULT_RUN_LIST_LIMIT,
  MAX_RUN_LIST_LIMIT,
  RUN_STATE_FILTERS,
  type RunStateFilter,
  type RunSummary,
} from "../../runs/index.js";
import { RunnerError } from "../../shared/index.js";
import { type CliCommand, EXIT } from "../io.js";
import { terminalJson, terminalText } from "../terminal-text.js";
import { oneLine, openRuns, usageLine, when } from "./jobs-shared.js";
import { wholeNumberOption } from "./whole-number-option.js";

const USAGE = `echo-runner jobs list [--state ${RUN_STATE_FILTERS.join("|")}] [--limit N] [--config FILE] [--json]`;

function parseState(text: string | undefined): RunStateFilter | undefined {
  if (text === undefined) return undefined;
  if ((RUN_STATE_FILTERS as readonly string[]).includes(text)) return text as RunStateFilter;
  throw new RunnerError(
    "CLI_USAGE",
    `--state "${text}" is not a run state; allowed: ${RUN_STATE_FILTERS.join(", ")}`,
  );
}

const parseLimit = (text: string | undefined): number =>
  wholeNumberOption("--limit", text, { default: DEFAULT_RUN_LIST_LIMIT, min: 1, max: MAX_RUN_LIST_LIMIT });

function line(run: RunSummary): string {
  const parked = run.parkedApprovals.map(
    (a) => `waits for approval ${a.id} (${a.tool}, until ${when(a.deadline)})`,
  );
  return [
    run.runId,
    run.outcome.padEnd(16),
    `agent ${run.agent ?? "?"}`,
    `created ${when(run.created)}`,
    run.finished === null ? `started ${when(run.started)}` : `finished ${when(run.finished)}`,
    ...parked,
    usageLine(run.usage),
    oneLine(run.detail, 80),
  ]
    .filter(Boolean)
    .join("  ");
}

/** `echo-runner jobs list`: recent agent runs, newest first, with where each stands. */
export const jobsListCommand: CliCommand = {
  words: ["jobs", "list"],
  summary:
    "list recent agent runs (newest first): state, outcome, agent, parked approvals, tokens, cost, time",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        state: { type: "string" },
        limit: { type: "string" },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length > 0) {
      throw new RunnerError("CLI_USAGE", `unexpected argument "${positionals[0]}"; usage: ${USAGE}`);
    }
    const state = parseState(values.state);
    const limit = parseLimit(values.limit);
    const runs = await openRuns(io, values.config);
    try {
      const rows = await runs.inspector.listRuns({ limit, ...(state ? { state } : {}) });
      if (values.json) io.stdout(`${terminalJson(rows, 2)}\n`);
      else if (rows.length === 0) io.stdout(state ? `no runs in state ${state}\n` : "no runs\n");
      else io.stdout(terminalText(`${rows.map(line).join("\n")}\n`));
      return EXIT.ok;
    } finally {
      await runs.close();
    }
  },
};
