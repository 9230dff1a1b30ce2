import { RunnerError } from "../../../shared/index.js";
import { type CliIo, EXIT } from "../../io.js";

/** The common shape of a printed guard verdict. */
export interface PrintedVerdict {
  verdict: string;
  rule: string;
  reason: string;
  [extra: string]: unknown;
}

/** Renders one verdict for a person: verdict, rule and reason, then any extra lines. */
export function renderVerdict(v: PrintedVerdict, extra: string[] = []): string {
  return `${[`${v.verdict} (${v.rule}): ${v.reason}`, ...extra].join("\n")}\n`;
}

/** Exit code of a single check: 0 allow, 1 ask or deny. */
export function verdictExit(v: PrintedVerdict): number {
  return v.verdict === "allow" ? EXIT.ok : EXIT.failed;
}

/** Reads a required string field of a batch line. */
export function batchField(line: Record<string, unknown>, key: string): string {
  const value = line[key];
  if (typeof value !== "string") throw new RunnerError("CLI_USAGE", `each line needs "${key}" as a string`);
  return value;
}

/**
 * `--batch`: one JSON object per stdin line in, one JSON verdict per line out, in order. A line
 * that is not valid input gets `{"error": ...}` in its place, and the exit code is then 2.
 */
export async function runBatch(
  io: CliIo,
  check: (line: Record<string, unknown>) => Promise<PrintedVerdict>,
): Promise<number> {
  const input = await io.readStdin();
  let exit: number = EXIT.ok;
  for (const raw of input.split("\n")) {
    if (raw.trim() === "") continue;
    let out: unknown;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        throw new RunnerError("CLI_USAGE", "each line must be a JSON object");
      }
      out = await check(parsed as Record<string, unknown>);
    } catch (err) {
      if (!(err instanceof SyntaxError) && !(err instanceof RunnerError)) throw err;
      out = { error: err.message };
      exit = EXIT.usage;
    }
    io.stdout(`${JSON.stringify(out)}\n`);
  }
  return exit;
}

/** The one positional a single check needs, or a usage error naming it. */
export function singlePositional(positionals: string[], what: string, usage: string): string {
  if (positionals.length !== 1) {
    throw new RunnerError("CLI_USAGE", `expected exactly one ${what} (or --batch)\nusage: ${usage}`);
  }
  return positionals[0] as string;
}
