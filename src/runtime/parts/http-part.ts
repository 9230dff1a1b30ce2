import { RunOperations } from "../../agent/index.js";
import { createHttpServer } from "../../http/index.js";
import { createMetricsCollector } from "../../metrics/index.js";
import { openAgentQueue } from "../../queue/index.js";
import { RunInspector } from "../../runs/index.js";
import { ScheduleService, ScheduleStore } from "../../scheduler/index.js";
import { RunnerError, systemClock } from "../../shared/index.js";
import { allowAlwaysFromConfig } from "../allow-always-from-config.js";
import { approvalsFromConfig } from "../approvals-from-config.js";
import { metricsTokenFromConfig, operatorsFromConfig } from "../operators-from-config.js";
import type { PartContext } from "../part-context.js";
import { slackInteractionsFromConfig } from "../slack-from-config.js";
import { storyReaderFromConfig } from "../story-from-config.js";

import type { RunningPart } from "./running-part.js";

/** The HTTP server: health, approval pages, the approval JSON API, /metrics and the /admin dashboard. */
export async function startHttpPart(ctx: PartContext): Promise<RunningPart & { address: string }> {
  const { config, logger, redis } = ctx;
  const { store } = approvalsFromConfig(config, redis, ctx.env, logger);
  const operators = operatorsFromConfig(config, ctx.env);
  const metricsToken = metricsTokenFromConfig(config, ctx.env, operators);
  const limit = config.http.failure_limit;
  const queue = openAgentQueue(redis, config.redis.key_prefix);
  const collector = createMetricsCollector({
    redis,
    keyPrefix: config.redis.key_prefix,
    approvals: store,
    queues: [queue],
    clock: systemClock,
  });
  const inspector = new RunInspector({ redis, keyPrefix: config.redis.key_prefix, approvals: store });
  const operations = new RunOperations({ redis, keyPrefix: config.redis.key_prefix, approvals: store });
  const storyReader = storyReaderFromConfig(config, redis, store);
  const grants = allowAlwaysFromConfig(config, redis);
  const slack = slackInteractionsFromConfig(config, ctx.env, store);
  const app = createHttpServer({
    redis,
    logger,
    keyPrefix: config.redis.key_prefix,
    operators,
    ...(metricsToken ? { metricsToken } : {}),
    trustProxy: config.http.trust_proxy,
    ...(slack ? { slack } : {}),
    failureLimits: {
      windowMs: limit.window_seconds * 1000,
      perSource: limit.per_source,
      global: limit.global,
      perLink: limit.per_link,
    },
    approvals: {
      store,
      publicUrl: config.http.public_url,
      story: storyReader.story,
      grants,
    },
    metrics: { collector },
    runs: { actions: operations, inspector },
    admin: {
      actions: operations,
      keyPrefix: config.redis.key_prefix,
      publicUrl: config.http.public_url,
      approvals: store,
      grants,
      runs: inspector,
      queues: [queue],
      schedules: new ScheduleService({
        store: new ScheduleStore({ redis, keyPrefix: config.redis.key_prefix }),
      }),
    },
  });
  const address = await app
    .listen({ host: config.http.host, port: config.http.port })
    .catch(async (err: NodeJS.ErrnoException) => {
      await app.close().catch(() => undefined);
      throw listenFailure(err, config.http.host, config.http.port);
    });
  logger.info({ address, publicUrl: config.http.public_url }, "http server listening");
  return {
    address,
    async stop() {
      await app.close();
      await inspector.close();
      await operations.close();
      await storyReader.close();
      await queue.close();
    },
  };
}

/** A port that cannot be listened on, named with the setting that changes it (one line, no stack). */
function listenFailure(err: NodeJS.ErrnoException, host: string, port: number): unknown {
  const where = `${host}:${port}`;
  const change = `set http.port (env ECHO_RUNNER_HTTP__PORT) to a free port, or 0 to let the system pick one`;
  if (err.code === "EADDRINUSE")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${where} is already in use (another echo-runner, or another program): ${change}`,
      {
        data: { host, port },
      },
    );
  if (err.code === "EACCES")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${where} needs privileges this process does not have (ports below 1024): ${change}`,
      {
        data: { host, port },
      },
    );
  if (err.code === "EADDRNOTAVAIL")
    return new RunnerError(
      "HTTP_PORT_UNAVAILABLE",
      `${host} is not an address of this machine: set http.host (env ECHO_RUNNER_HTTP__HOST) to one of its addresses, or 127.0.0.1`,
      {
        data: { host, port },
      },
    );
  return err;
}
