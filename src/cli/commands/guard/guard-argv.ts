import { parseArgs } from "node:util";
import type { LoadedConfig } from "../../../config/index.js";
import { createExecPolicy, type ExecPolicyOptions, type ExecVerdict } from "../../../guard/index.js";
import { createCommandGuard, pathLookup } from "../../../platform/index.js";
import { RunnerError } from "../../../shared/index.js";
import type { CliCommand } from "../../io.js";
import { loadCliConfig } from "../shared/index.js";
import { renderVerdict, runBatch, singlePositional, verdictExit } from "./guard-shared.js";

const USAGE =
  "echo-runner guard argv '<json array>' [--config FILE] [--json] | --batch < lines of {\"argv\": [...]}";

/** Maps `tools.exec.*` of the loaded config onto the exec policy's input. */
export function execPolicyInputFromConfig(
  config: LoadedConfig["config"],
  resolveBinary: ExecPolicyOptions["resolveBinary"],
): ExecPolicyOptions {
  const exec = config.tools.exec;
  return { security: exec.security, ask: exec.ask, safeBins: exec.safe_bins, resolveBinary, host: exec.host };
}

function parseArgv(value: unknown): string[] {
  const argv = typeof value === "string" ? safeJson(value) : value;
  if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== "string")) {
    throw new RunnerError(
      "CLI_USAGE",
      'argv must be a non-empty JSON array of strings, e.g. ["head", "-n", "5"]',
    );
  }
  return argv as string[];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RunnerError("CLI_USAGE", `argv is not valid JSON: ${text}`);
  }
}

function printable(v: ExecVerdict) {
  return { verdict: v.verdict, rule: v.rule, reason: v.reason, safeBins: v.safeBins, findings: v.findings };
}

/**
 * `echo-runner guard argv`: whether an argv (run without a shell) may run under `tools.exec.*`.
 * `allow` means a safe bin within its profile that runs without asking.
 */
export const guardArgvCommand: CliCommand = {
  words: ["guard", "argv"],
  summary: "judge an argv under tools.exec security/ask and the safe-bin profiles",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        json: { type: "boolean", default: false },
        batch: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    const loaded = await loadCliConfig(io, values.config);
    const policy = createExecPolicy(
      await createCommandGuard(),
      execPolicyInputFromConfig(loaded.config, pathLookup(io.env, io.cwd)),
    );
    if (values.batch) return runBatch(io, async (line) => printable(policy.checkArgv(parseArgv(line.argv))));
    const verdict = printable(policy.checkArgv(parseArgv(singlePositional(positionals, "argv", USAGE))));
    io.stdout(values.json ? `${JSON.stringify(verdict)}\n` : renderVerdict(verdict));
    return verdictExit(verdict);
  },
};
