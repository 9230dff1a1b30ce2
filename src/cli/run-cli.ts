import { isRunnerError } from "../shared/index.js";
import { COMMANDS } from "./commands/index.js";
import { commandHelpText, commandsUnder, groupHelpText, helpText, packageVersion } from "./help-text.js";
import { type CliCommand, type CliIo, EXIT } from "./io.js";

const HELP_FLAGS: readonly string[] = ["--help", "-h"];
const VERSION_FLAGS: readonly string[] = ["--version", "-V"];

/** The command whose words start argv (longest first). */
function findCommand(argv: readonly string[]): CliCommand | undefined {
  const sorted = [...COMMANDS].sort((a, b) => b.words.length - a.words.length);
  return sorted.find((c) => c.words.every((word, i) => argv[i] === word));
}

/** The longest prefix of argv that is a command group (words shared by several commands), if any. */
function findGroup(argv: readonly string[]): { prefix: string[]; members: CliCommand[] } | undefined {
  for (let n = argv.length; n >= 1; n--) {
    const prefix = argv.slice(0, n);
    const members = commandsUnder(COMMANDS, prefix);
    if (members.length > 0) return { prefix, members };
  }
  return undefined;
}

/** `echo-runner help [words...]`: the help of a command, of a group, or of everything. */
function helpFor(words: readonly string[], io: CliIo): number {
  if (words.length === 0) {
    io.stdout(helpText(COMMANDS));
    return EXIT.ok;
  }
  const command = findCommand(words);
  if (command && command.words.length === words.length) {
    io.stdout(commandHelpText(command, commandsUnder(COMMANDS, command.words)));
    return EXIT.ok;
  }
  const group = findGroup(words);
  if (group && group.prefix.length === words.length) {
    io.stdout(groupHelpText(group.prefix, group.members));
    return EXIT.ok;
  }
  io.stderr(`echo-runner: no command or command group "${words.join(" ")}"\n\n${helpText(COMMANDS)}`);
  return EXIT.usage;
}

/** Finds the command for argv and runs it; returns the exit code. Errors become messages, not traces. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || HELP_FLAGS.includes(argv[0]!)) {
    io.stdout(helpText(COMMANDS));
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (VERSION_FLAGS.includes(argv[0]!)) {
    io.stdout(`echo-runner ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (argv[0] === "help") return helpFor(argv.slice(1), io);
  const command = findCommand(argv);
  if (!command) {
    const group = findGroup(argv);
    if (!group) {
      io.stderr(`echo-runner: unknown command "${argv.join(" ")}"\n\n${helpText(COMMANDS)}`);
      return EXIT.usage;
    }
    const rest = argv.slice(group.prefix.length);
    const groupHelp = groupHelpText(group.prefix, group.members);
    if (rest.length > 0 && HELP_FLAGS.includes(rest[0]!)) {
      io.stdout(groupHelp);
      return EXIT.ok;
    }
    // A group without a subcommand, or with one it does not have: a usage error listing what it has.
    if (rest.length > 0) io.stderr(`echo-runner: unknown command "${argv.join(" ")}"\n\n`);
    io.stderr(groupHelp);
    return EXIT.usage;
  }
  const args = argv.slice(command.words.length);
  if (args.some((arg) => HELP_FLAGS.includes(arg))) {
    io.stdout(commandHelpText(command, commandsUnder(COMMANDS, command.words)));
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
