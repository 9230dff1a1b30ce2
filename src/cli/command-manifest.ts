import { readFile } from "node:fs/promises";
import type { CommandEntry } from "./dispatch.js";
import type { CliCommand } from "./io.js";

/** One line of dist/src/cli/commands/manifest.json, written by scripts/build.mjs. */
interface ManifestLine {
  words: string[];
  summary: string;
  usage: string;
  /** The module under commands/ that exports the command, and the export's name. */
  file: string;
  export: string;
}

function isManifestLine(value: unknown): value is ManifestLine {
  const v = value as Partial<ManifestLine> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    Array.isArray(v.words) &&
    v.words.every((w) => typeof w === "string") &&
    typeof v.summary === "string" &&
    typeof v.usage === "string" &&
    typeof v.file === "string" &&
    /^[a-z0-9-]+(\/[a-z0-9-]+)*\.js$/.test(v.file) &&
    typeof v.export === "string"
  );
}

/**
 * The commands of the build's manifest, each loading only its own module when it runs (so `--help`
 * and `guard command` do not load BullMQ, Fastify and the rest). Null when there is no manifest:
 * running from the TypeScript sources, where run-cli.ts has every command loaded. A module in
 * `preloaded` (by its manifest file) is used as it is, not imported.
 */
export async function manifestEntries(
  preloaded: Readonly<Record<string, object>> = {},
): Promise<CommandEntry[] | null> {
  let text: string;
  try {
    text = await readFile(new URL("./commands/manifest.json", import.meta.url), "utf8");
  } catch {
    return null;
  }
  const lines: unknown = JSON.parse(text);
  if (!Array.isArray(lines) || !lines.every(isManifestLine)) {
    throw new Error("dist/src/cli/commands/manifest.json is not a command manifest; run `npm run build`");
  }
  return lines.map((line) => ({
    words: line.words,
    summary: line.summary,
    usage: line.usage,
    async load() {
      const module = (preloaded[line.file] ??
        (await import(new URL(`./commands/${line.file}`, import.meta.url).href))) as Record<
        string,
        CliCommand
      >;
      const command = module[line.export];
      if (!command)
        throw new Error(`commands/${line.file} has no export ${line.export}; run \`npm run build\``);
      return command;
    },
  }));
}
