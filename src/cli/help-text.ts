import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
/** What help needs of a command: its words, summary and usage (a CommandInfo, or a manifest entry). */
export interface CommandInfo {
  readonly words: readonly string[];
  readonly summary: string;
  readonly usage: string;
}

/** The top-level help: every command with its summary. */
export function helpText(commands: readonly CommandInfo[]): string {
  const lines = ["echo-runner: durable job-runner for unattended AI agents", "", "Commands:"];
  for (const command of commands) lines.push(`  ${command.words.join(" ").padEnd(24)} ${command.summary}`);
  lines.push(
    "",
    "Run `echo-runner <group> --help` (or `echo-runner help <group>`) for the subcommands of a group,",
    "`echo-runner <command> --help` for the options of one command, `echo-runner --version` for the version.",
  );
  return `${lines.join("\n")}\n`;
}

/** The commands whose words start with `prefix` (a command group such as ["schedules"]). */
export function commandsUnder<T extends CommandInfo>(commands: readonly T[], prefix: readonly string[]): T[] {
  return commands.filter(
    (c) => c.words.length > prefix.length && prefix.every((word, i) => c.words[i] === word),
  );
}

/** The help of a command group: its subcommands with their summaries and usage lines. */
export function groupHelpText(prefix: readonly string[], members: readonly CommandInfo[]): string {
  const group = prefix.join(" ");
  const lines = [`echo-runner ${group}: ${members.length} subcommands`, "", "Subcommands:"];
  for (const command of members) {
    lines.push(`  ${command.words.slice(prefix.length).join(" ").padEnd(16)} ${command.summary}`);
  }
  lines.push("", "Usage:");
  for (const command of members) lines.push(`  ${command.usage}`);
  lines.push("", `Run \`echo-runner ${group} <subcommand> --help\` for the options of one subcommand.`);
  return `${lines.join("\n")}\n`;
}

/** The help of one command; a command that is also a group (`audit`) lists its subcommands too. */
export function commandHelpText(command: CommandInfo, subcommands: readonly CommandInfo[] = []): string {
  const text = `${command.summary}\n\nusage: ${command.usage}\n`;
  return subcommands.length === 0 ? text : `${text}\n${groupHelpText(command.words, subcommands)}`;
}

let cachedVersion: string | undefined;

/** The version in the package.json of the package this file belongs to (sources or compiled output). */
export function packageVersion(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "echo-runner" && typeof pkg.version === "string") {
        cachedVersion = pkg.version;
        return cachedVersion;
      }
    } catch {
      // no package.json here: look in the parent
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}
