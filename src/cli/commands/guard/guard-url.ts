import { lookup } from "node:dns/promises";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { checkUrl, type HostResolver, type UrlVerdict } from "../../../guard/index.js";
import { RunnerError } from "../../../shared/index.js";
import type { CliCommand } from "../../io.js";
import { batchField, renderVerdict, runBatch, singlePositional, verdictExit } from "./guard-shared.js";

const USAGE =
  'echo-runner guard url \'<url>\' [--resolve-map FILE] [--json] | --batch < lines of {"url": "..."}';

/** The system resolver (every address, as the OS returns them). */
export const systemResolver: HostResolver = {
  resolve: async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address),
};

/** A resolver over a JSON map host → addresses; a host missing from it does not resolve. */
export function mapResolver(map: Readonly<Record<string, readonly string[]>>): HostResolver {
  const table = new Map(
    Object.entries(map).map(([host, addrs]) => [host.toLowerCase().replace(/\.+$/, ""), addrs]),
  );
  return { resolve: async (host) => table.get(host.toLowerCase().replace(/\.+$/, "")) ?? [] };
}

async function readResolveMap(path: string): Promise<HostResolver> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (err) {
    throw new RunnerError("CLI_USAGE", `--resolve-map ${path}: ${(err as Error).message}`);
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((v) => Array.isArray(v) && v.every((a) => typeof a === "string"));
  if (!valid)
    throw new RunnerError(
      "CLI_USAGE",
      `--resolve-map ${path}: expected a JSON object mapping host names to lists of addresses`,
    );
  return mapResolver(parsed as Record<string, string[]>);
}

function printable(v: UrlVerdict) {
  return {
    verdict: v.verdict,
    rule: v.rule,
    reason: v.reason,
    internal: v.internal,
    host: v.host,
    connectTo: v.connectTo,
  };
}

/** `echo-runner guard url`: the SSRF check for a URL (`internal: true` needs approval). */
export const guardUrlCommand: CliCommand = {
  words: ["guard", "url"],
  summary: "check a URL for SSRF: internal hosts and addresses need approval",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        "resolve-map": { type: "string" },
        json: { type: "boolean", default: false },
        batch: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    const mapPath = values["resolve-map"];
    const resolver = mapPath === undefined ? systemResolver : await readResolveMap(resolve(io.cwd, mapPath));
    if (values.batch)
      return runBatch(io, async (line) => printable(await checkUrl(batchField(line, "url"), resolver)));
    const verdict = printable(await checkUrl(singlePositional(positionals, "URL", USAGE), resolver));
    const extra = [
      `internal: ${verdict.internal}`,
      ...(verdict.connectTo.length > 0 ? [`connect to: ${verdict.connectTo.join(", ")}`] : []),
    ];
    io.stdout(values.json ? `${JSON.stringify(verdict)}\n` : renderVerdict(verdict, extra));
    return verdictExit(verdict);
  },
};
