import { parseArgs } from "node:util";
import type { CommandVerdict } from "../../../guard/index.js";
import { createCommandGuard } from "../../../platform/index.js";
import type { CliCommand } from "../../io.js";
import { batchField, renderVerdict, runBatch, singlePositional, verdictExit } from "./guard-shared.js";

const USAGE = 'echo-runner guard command \'<cmd>\' [--json] | --batch < lines of {"cmd": "..."}';

function printable(v: CommandVerdict) {
  return { verdict: v.verdict, rule: v.rule, reason: v.reason, findings: v.findings };
}

/** `echo-runner guard command`: the command guard's verdict for a shell command line. */
export const guardCommandCommand: CliCommand = {
  words: ["guard", "command"],
  summary: "judge a shell command: allow, ask (needs approval) or deny (hard block)",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { json: { type: "boolean", default: false }, batch: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    const guard = await createCommandGuard();
    if (values.batch) return runBatch(io, async (line) => printable(guard.check(batchField(line, "cmd"))));
    const verdict = printable(guard.check(singlePositional(positionals, "command", USAGE)));
    const more =
      verdict.findings.length > 1
        ? verdict.findings.map((f) => `  - ${f.verdict} (${f.rule}): ${f.reason}`)
        : [];
    io.stdout(values.json ? `${JSON.stringify(verdict)}\n` : renderVerdict(verdict, more));
    return verdictExit(verdict);
  },
};
