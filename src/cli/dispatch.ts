import { describeRedisOutage, isRunnerError, redisOutageOf } from "../shared/index.js";
import {
  type CommandInfo,
  commandHelpText,
  commandsUnder,
  groupHelpText,
  helpText,
  packageVersion,
} from "./help-text.js";
import { type CliCommand, type CliIo, EXIT } from "./io.js";

/**
 * A command as the dispatcher knows it: what help shows, and how to get the code that runs it. From
 * the sources every command is loaded already; the compiled CLI reads the build's manifest and loads
 * only the module of the command it runs (command-manifest.ts).
 */
export interface CommandEntry extends CommandInfo {
  load(): Promise<CliCommand>;
}

const HELP_FLAGS: readonly string[] = ["--help", "-h"];
const VERSION_FLAGS: readonly string[] = ["--version", "-V"];

/** The command whose words start argv (longest first). */
function findCommand(commands: readonly CommandEntry[], argv: readonly string[]): CommandEntry | undefined {
  const sorted = [...commands].sort((a, b) => b.words.length - a.words.length);
  return sorted.find((c) => c.words.every((word, i) => argv[i] === word));
}

/** The longest prefix of argv that is a command group (words shared by several commands), if any. */
function findGroup(
  commands: readonly CommandEntry[],
  argv: readonly string[],
): { prefix: string[]; members: CommandEntry[] } | undefined {
  for (let n = argv.length; n >= 1; n--) {
    const prefix = argv.slice(0, n);
    const members = commandsUnder(commands, prefix);
    if (members.length > 0) return { prefix, members };
  }
  return undefined;
}

/** `echo-runner help [words...]`: the help of a command, of a group, or of everything. */
function helpFor(commands: readonly CommandEntry[], words: readonly string[], io: CliIo): number {
  if (words.length === 0) {
    io.stdout(helpText(commands));
    return EXIT.ok;
  }
  const command = findCommand(commands, words);
  if (command && command.words.length === words.length) {
    io.stdout(commandHelpText(command, commandsUnder(commands, command.words)));
    return EXIT.ok;
  }
  const group = findGroup(commands, words);
  if (group && group.prefix.length === words.length) {
    io.stdout(groupHelpText(group.prefix, group.members));
    return EXIT.ok;
  }
  io.stderr(`echo-runner: no command or command group "${words.join(" ")}"\n\n${helpText(commands)}`);
  return EXIT.usage;
}

/** Finds the command for argv among `commands` and runs it; returns the exit code. Errors become messages, not traces. */
export async function dispatch(
  argv: readonly string[],
  io: CliIo,
  commands: readonly CommandEntry[],
): Promise<number> {
  if (argv.length === 0 || HELP_FLAGS.includes(argv[0]!)) {
    io.stdout(helpText(commands));
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (VERSION_FLAGS.includes(argv[0]!)) {
    io.stdout(`echo-runner ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (argv[0] === "help") return helpFor(commands, argv.slice(1), io);
  const command = findCommand(commands, argv);
  if (!command) {
    const group = findGroup(commands, argv);
    if (!group) {
      io.stderr(`echo-runner: unknown command "${argv.join(" ")}"\n\n${helpText(commands)}`);
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
    io.stdout(commandHelpText(command, commandsUnder(commands, command.words)));
    return EXIT.ok;
  }
  try {
    return await (await command.load()).run(args, io);
  } catch (err) {
    if (isRunnerError(err)) {
      io.stderr(`echo-runner: ${err.code}: ${err.message}\n`);
      return err.code === "CLI_USAGE" || err.code === "CONFIG_INVALID" ? EXIT.usage : EXIT.failed;
    }
    const outage = redisOutageOf(err);
    if (outage !== undefined) {
      // A Redis that refuses or drops the command is the operator's to fix, not a crash: one
      // line naming the condition and what Redis said, and the fix (no stack).
      const { what, fix } = describeRedisOutage(outage);
      const said = (err as Error).message.split("\n")[0];
      io.stderr(`echo-runner: REDIS_UNAVAILABLE: ${what} (Redis: ${said})\n  fix: ${fix}\n`);
      return EXIT.failed;
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
