import { parseArgs } from "node:util";
import { layersDir } from "../../../runtime/index.js";
import { RunnerError } from "../../../shared/index.js";
import { type LayerRecord, RunLayers } from "../../../tools/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { dataDirOf } from "../shared/index.js";

/**
 * `echo-runner runs layers|diff|land|discard`: what an operator does with a run's layer that did not
 * land by itself: a landing a person denied or let expire, or a failed run's. The layers
 * are in the data dir `start` uses (`--data-dir`, ECHO_RUNNER_DATA_DIR, or ./data).
 */

const DATA_DIR = "[--data-dir DIR]";

function openLayers(io: CliIo, dataDir: string | undefined): RunLayers {
  const dir = dataDirOf(dataDir, io.env, io.cwd);
  return new RunLayers({ dir: layersDir(dir) });
}

function oneRun(positionals: string[], usage: string): string {
  if (positionals.length !== 1 || positionals[0] === "") {
    throw new RunnerError("CLI_USAGE", `give one run id; usage: ${usage}`);
  }
  return positionals[0] as string;
}

async function endedLayer(layers: RunLayers, runId: string, force: boolean): Promise<LayerRecord> {
  // A run and its sub-agents share the layer its root made: found by the root's id or the layer's.
  const record = await layers.find(runId);
  if (record === undefined) {
    throw new RunnerError("RUN_NOT_FOUND", `run ${runId} has no layer in ${layers.folderOf(runId)}`, {
      data: { runId },
    });
  }
  if (record.state === "open" && !force) {
    throw new RunnerError(
      "CLI_USAGE",
      `run ${runId}'s layer is still in use: the run has not ended, or its landing waits for a person (decide it with \`echo-runner approvals approve|deny\`). Pass --force only when no worker runs it any more`,
      { data: { runId } },
    );
  }
  return record;
}

function line(record: LayerRecord): string {
  const when = new Date(record.updatedAt).toISOString();
  return `${record.runId}  ${record.state.padEnd(9)}  ${when}  ${record.workspace}${record.note ? `  (${record.note})` : ""}`;
}

const LAYERS_USAGE = `echo-runner runs layers ${DATA_DIR} [--json]`;
export const runsLayersCommand: CliCommand = {
  words: ["runs", "layers"],
  summary: "list the runs' workspace layers (open, kept for a decision, landed, discarded)",
  usage: LAYERS_USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { "data-dir": { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    if (positionals.length > 0)
      throw new RunnerError("CLI_USAGE", `unexpected argument "${positionals[0]}"; usage: ${LAYERS_USAGE}`);
    const records = await openLayers(io, values["data-dir"]).list();
    if (values.json) io.stdout(`${JSON.stringify(records, null, 2)}\n`);
    else if (records.length === 0) io.stdout("no layers\n");
    else io.stdout(`${records.map(line).join("\n")}\n`);
    return EXIT.ok;
  },
};

const DIFF_USAGE = `echo-runner runs diff <run-id> ${DATA_DIR} [--full] [--json]`;
export const runsDiffCommand: CliCommand = {
  words: ["runs", "diff"],
  summary: "show what a run's layer would change in its workspace (file list and text diff)",
  usage: DIFF_USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        "data-dir": { type: "string" },
        full: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    const runId = oneRun(positionals, DIFF_USAGE);
    const layers = openLayers(io, values["data-dir"]);
    const record = await endedLayer(layers, runId, true);
    const changes = await layers.changes(record.layerId);
    if (changes === undefined) {
      io.stdout(`run ${runId}'s layer is ${record.state}: nothing left to land\n`);
      return EXIT.ok;
    }
    const summary = await layers.summary(record.layerId, changes, values.full ? 10_000_000 : undefined);
    if (values.json) {
      io.stdout(`${JSON.stringify({ ...summary, state: record.state, digest: changes.digest }, null, 2)}\n`);
      return EXIT.ok;
    }
    const c = summary.counts;
    io.stdout(
      [
        `run ${runId}: layer ${record.state} over ${summary.workspace}${record.note ? ` (${record.note})` : ""}`,
        `${c.added} added, ${c.changed} changed, ${c.deleted} deleted, ${c.links} links, ${c.folders} folders`,
        ...(summary.reasons.length > 0
          ? ["waits for a person because it:", ...summary.reasons.map((r) => `  ${r}`)]
          : []),
        "",
        ...summary.files,
        ...(summary.more > 0 ? [`… and ${summary.more} more`] : []),
        "",
        summary.diff,
      ].join("\n"),
    );
    return EXIT.ok;
  },
};

const LAND_USAGE = `echo-runner runs land <run-id> ${DATA_DIR} [--force]`;
export const runsLandCommand: CliCommand = {
  words: ["runs", "land"],
  summary: "land a kept layer's changes in its workspace (as `runs diff` shows them)",
  usage: LAND_USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { "data-dir": { type: "string" }, force: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    const runId = oneRun(positionals, LAND_USAGE);
    const layers = openLayers(io, values["data-dir"]);
    const record = await endedLayer(layers, runId, values.force);
    const landed = await layers.land(record.layerId, {
      note: "landed by the operator (echo-runner runs land)",
    });
    io.stdout(
      landed.outcome === "already"
        ? `run ${runId}'s layer had landed already\n`
        : `landed run ${runId}'s ${landed.changes} changes\n`,
    );
    return EXIT.ok;
  },
};

const DISCARD_USAGE = `echo-runner runs discard <run-id> ${DATA_DIR} [--force]`;
export const runsDiscardCommand: CliCommand = {
  words: ["runs", "discard"],
  summary: "throw a kept layer's changes away (the workspace stays as it is)",
  usage: DISCARD_USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { "data-dir": { type: "string" }, force: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    const runId = oneRun(positionals, DISCARD_USAGE);
    const layers = openLayers(io, values["data-dir"]);
    const record = await endedLayer(layers, runId, values.force);
    await layers.discard(record.layerId, "discarded by the operator (echo-runner runs discard)");
    io.stdout(`discarded run ${runId}'s layer; its workspace is as it was\n`);
    return EXIT.ok;
  },
};
