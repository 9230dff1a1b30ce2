import { isRunnerError } from "../shared/index.js";
import { COMMANDS } from "./commands/index.js";
import { type CliIo, EXIT } from "./io.js";

function helpText(): string {
  const lines = ["echo-runner: durable job-runner for unattended AI agents", "", "Commands:"];
  for (const command of COMMANDS) lines.push(`  ${command.words.join(" ").padEnd(24)} ${command.summary}`);
  lines.push("", "Run `echo-runner <command> --help` for the options of one command.");
  return `${lines.join("\n")}\n`;
}

/** Finds the command for argv and runs it; returns the exit code. Errors become messages, not traces. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.stdout(helpText());
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  const sorted = [...COMMANDS].sort((a, b) => b.words.length - a.words.length);
  const command = sorted.find((c) => c.words.every((word, i) => argv[i] === word));
  if (!command) {
    io.stderr(`echo-runner: unknown command "${argv.join(" ")}"\n\n${helpText()}`);
    return EXIT.usage;
  }
  const args = argv.slice(command.words.length);
  if (args.includes("--help") || args.includes("-h")) {
    io.stdout(`${command.summary}\n\nusage: ${command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    if (isRunnerError(err)) {
      io.stderr(`echo-runner: ${err.code}: ${err.message}\n`);
      return err.code === "CLI_USAGE" || err.code === "CONFIG_INVALID" ? EXIT.usage : EXIT.failed;
    }
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
      io.stderr(`echo-runner: ${(err as Error).message}\nusage: ${command.usage}\n`);
      return EXIT.usage;
    }
    io.stderr(
      `echo-runner: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return EXIT.failed;
  }
}
