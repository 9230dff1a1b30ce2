import { homedir } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createPathFence, type PathAccess } from "../../../guard/index.js";
import { nodeFsView } from "../../../platform/index.js";
import { RunnerError } from "../../../shared/index.js";
import type { CliCommand } from "../../io.js";
import { batchField, renderVerdict, runBatch, singlePositional, verdictExit } from "./guard-shared.js";

const USAGE =
  'echo-runner guard path --workspace DIR [--write] [--safe-write-root DIR] [--protect DIR]... \'<path>\' [--json] | --batch < lines of {"path": "..."}';

/** `echo-runner guard path`: the path fence (layer 1) for a path parameter. */
export const guardPathCommand: CliCommand = {
  words: ["guard", "path"],
  summary: "check a path against the workspace fence: allow or deny, with the resolved path",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        workspace: { type: "string" },
        write: { type: "boolean", default: false },
        "safe-write-root": { type: "string" },
        protect: { type: "string", multiple: true },
        json: { type: "boolean", default: false },
        batch: { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (values.workspace === undefined)
      throw new RunnerError("CLI_USAGE", `--workspace DIR is required\nusage: ${USAGE}`);
    const writeRoot = values["safe-write-root"];
    const fence = createPathFence({
      workspaceRoot: resolve(io.cwd, values.workspace),
      ...(writeRoot === undefined ? {} : { safeWriteRoot: resolve(io.cwd, writeRoot) }),
      homeDir: io.env.HOME ?? homedir(),
      protectedPaths: (values.protect ?? []).map((p) => resolve(io.cwd, p)),
      fs: nodeFsView(),
    });
    const access: PathAccess = values.write ? "write" : "read";
    if (values.batch) {
      return runBatch(io, async (line) => {
        const write = line.write === undefined ? access === "write" : line.write === true;
        return { ...fence.check(batchField(line, "path"), write ? "write" : "read") };
      });
    }
    const verdict = { ...fence.check(singlePositional(positionals, "path", USAGE), access) };
    io.stdout(
      values.json
        ? `${JSON.stringify(verdict)}\n`
        : renderVerdict(verdict, [`resolved: ${verdict.resolvedPath}`]),
    );
    return verdictExit(verdict);
  },
};
