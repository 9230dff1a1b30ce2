import { parseArgs } from "node:util";
import { ApprovalStore } from "../../../approvals/index.js";
import { AuditTrail } from "../../../journal/index.js";
import { type AgentJobPayload, enqueueAgentRun, openAgentQueue } from "../../../queue/index.js";
import { approvalPolicyFromConfig } from "../../../runtime/index.js";
import { RunnerError, randomId } from "../../../shared/index.js";
import { type CliCommand, EXIT } from "../../io.js";
import { connectCliRedis, operatorIdentity } from "../shared/index.js";
import { readAgentFile } from "./run-agent-file.js";
import { jsonDisplay, plainDisplay, type RunDisplay, terminalDisplay } from "./run-display.js";
import { type FollowOutcome, followRun } from "./run-follow.js";

const USAGE =
  "echo-runner run <agent.yaml> [--config FILE] [--json] [--plain] [--timeout SECONDS] [--no-follow]";

/** Exit code when --timeout ran out while the run was still going (it goes on without us). */
export const EXIT_STILL_RUNNING = 3;

const EXIT_BY_OUTCOME: Record<FollowOutcome, number> = {
  completed: EXIT.ok,
  max_steps: EXIT.failed,
  failed: EXIT.failed,
  timeout: EXIT_STILL_RUNNING,
};

/**
 * `echo-runner run <agent.yaml>`: enqueues one run now (origin cli, attended by the operator) for
 * the workers to pick up, and follows it in the terminal — each gate decision and execution (its
 * sub-agents' too), parked / resumed with the approval to decide, the final answer. Exit 0 when it
 * completed, 1 when it failed or hit max_steps, 3 when --timeout ran out first.
 */
export const runCommand: CliCommand = {
  words: ["run"],
  summary: "enqueue one run of an agent file now and follow it (steps, decisions, approvals, answer)",
  usage: USAGE,
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args,
      options: {
        config: { type: "string" },
        json: { type: "boolean", default: false },
        plain: { type: "boolean", default: false },
        timeout: { type: "string" },
        "no-follow": { type: "boolean", default: false },
      },
      allowPositionals: true,
    });
    if (positionals.length !== 1 || !positionals[0]) {
      throw new RunnerError("CLI_USAGE", `expected exactly one agent file; usage: ${USAGE}`);
    }
    const timeoutSeconds = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0)) {
      throw new RunnerError(
        "CLI_USAGE",
        `--timeout must be a positive number of seconds, not "${values.timeout}"`,
      );
    }
    const { loaded, redis, close } = await connectCliRedis(io, values.config);
    const { config } = loaded;
    const keyPrefix = config.redis.key_prefix;
    const queue = openAgentQueue(redis, keyPrefix);
    let display: RunDisplay | undefined;
    try {
      const { agentId, spec } = await readAgentFile(positionals[0], config);
      const userId = operatorIdentity(config, io.env);
      const runId = `cli-${randomId()}`;
      const payload: AgentJobPayload = {
        v: 1,
        runId,
        traceId: runId,
        agent: spec,
        origin: { kind: "cli" },
        sessionKey: `cli:${userId}:${runId}`,
        userId,
        agentId,
        channel: "cli",
        chatId: "",
        unattended: false,
        parentExecutionId: null,
        depth: 0,
        createdAt: Date.now(),
      };
      await enqueueAgentRun(queue, payload);
      const configFlag = values.config ? ` --config ${values.config}` : "";
      const hint = (id: string) => `echo-runner approvals approve ${id}${configFlag}`;
      display = values.json
        ? jsonDisplay(io.stdout)
        : process.stdout.isTTY === true && !values.plain
          ? terminalDisplay(io.stdout, hint)
          : plainDisplay(io.stdout, hint);
      display.event({ type: "enqueued", runId, agent: agentId, model: spec.model, task: spec.task });
      if (values["no-follow"]) return EXIT.ok;
      const outcome = await followRun({
        queue,
        trail: new AuditTrail({ redis, keyPrefix }),
        approvals: new ApprovalStore({ redis, keyPrefix, policy: approvalPolicyFromConfig(config) }),
        runId,
        traceId: runId,
        emit: (event) => display?.event(event),
        deadline: timeoutSeconds === undefined ? undefined : Date.now() + timeoutSeconds * 1000,
      });
      return EXIT_BY_OUTCOME[outcome];
    } finally {
      display?.close();
      await queue.close();
      await close();
    }
  },
};
