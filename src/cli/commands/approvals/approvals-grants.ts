import { parseArgs } from "node:util";
import { grantSummary } from "../../../approvals/index.js";
import { allowAlwaysFromConfig } from "../../../runtime/index.js";
import { makeVisible, RunnerError } from "../../../shared/index.js";
import { type CliCommand, type CliIo, EXIT } from "../../io.js";
import { connectCliRedis, operatorIdentity } from "../shared/index.js";

const LIST_USAGE = "echo-runner approvals grants list [--config FILE] [--json]";
const REVOKE_USAGE = "echo-runner approvals grants revoke <id> [--config FILE] [--json]";

async function withGrants<T>(
  io: CliIo,
  configPath: string | undefined,
  use: (grants: ReturnType<typeof allowAlwaysFromConfig>, operator: () => string) => Promise<T>,
): Promise<T> {
  const { loaded, redis, close } = await connectCliRedis(io, configPath);
  try {
    const grants = allowAlwaysFromConfig(loaded.config, redis);
    return await use(grants, () => operatorIdentity(loaded.config, io.env));
  } finally {
    await close();
  }
}

/** `echo-runner approvals grants list`: the live allow-always grants, newest first. */
export const approvalsGrantsListCommand: CliCommand = {
  words: ["approvals", "grants", "list"],
  summary: "list the live allow-always grants (what runs without asking, for whom, until when)",
  usage: LIST_USAGE,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: false,
    });
    return withGrants(io, values.config, async (grants) => {
      const { grants: list, damaged } = await grants.listWithDamaged();
      if (values.json) io.stdout(`${makeVisible(JSON.stringify(list, null, 2))}\n`);
      else if (list.length === 0) io.stdout("no allow-always grants\n");
      else io.stdout(`${list.map((g) => makeVisible(grantSummary(g))).join("\n")}\n`);
      // A record that cannot be read allows nothing; it is named, and the exit code says so.
      for (const d of damaged) io.stderr(`${makeVisible(`damaged ${d.id}: ${d.code}: ${d.message}`)}\n`);
      return damaged.length > 0 ? EXIT.failed : EXIT.ok;
    });
  },
};

/** `echo-runner approvals grants revoke <id>`: the grant allows nothing from now on. */
export const approvalsGrantsRevokeCommand: CliCommand = {
  words: ["approvals", "grants", "revoke"],
  summary: "revoke one allow-always grant by id (recorded in the audit trail as the operator)",
  usage: REVOKE_USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: { config: { type: "string" }, json: { type: "boolean", default: false } },
      allowPositionals: true,
    });
    if (positionals.length !== 1 || !positionals[0]) {
      throw new RunnerError("CLI_USAGE", `expected exactly one grant id; usage: ${REVOKE_USAGE}`);
    }
    const id = positionals[0];
    return withGrants(io, values.config, async (grants, operator) => {
      const grant = await grants.revoke(id, operator());
      if (values.json) io.stdout(`${makeVisible(JSON.stringify({ revoked: grant }, null, 2))}\n`);
      else
        io.stdout(
          `${makeVisible(`revoked ${grant.id}: ${grant.tool} for ${grant.scope} ${grant.scopeId}`)}\n`,
        );
      return EXIT.ok;
    });
  },
};
