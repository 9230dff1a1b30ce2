import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Logger } from "../../logging/index.js";
import type { RunInspector } from "../../runs/index.js";
import { RunnerError, sameIdentity } from "../../shared/index.js";
import { checkBearer, type HttpAuth } from "../auth/index.js";
import { jsonErrorHandler } from "../pages/index.js";
import {
  actionStatus,
  performRunAction,
  RUN_ACTIONS,
  type RunAction,
  type RunActionsPort,
} from "./run-actions.js";
import { runListFilterOf } from "./run-list-query.js";

/** Options of the runs API (see {@link HttpServerOptions.runs}). */
export interface RunApiOptions {
  actions: RunActionsPort;
  /** `GET /api/runs` and `GET /api/runs/:id` read through it. */
  inspector: Pick<RunInspector, "showRun" | "listRunPage">;
}

const ActionBody = z
  .object({
    /** Why (kept in the journal and the audit trail); optional. */
    reason: z.string().max(2000).optional(),
    /** Optional: who the caller believes they are; must name the token's owner. */
    by: z.string().min(1).max(512).optional(),
  })
  .strict();

/**
 * The runs JSON API, for named operators (the same bearer tokens and throttle as `/api/approvals`):
 * `GET /api/runs` (filters and cursor as query parameters, see run-list-query.ts), `GET /api/runs/:id`, `POST /api/runs/:id/cancel | retry | rerun` ({reason?, by?}). The action is
 * recorded as the token's owner, via `api`, in the run's journal (cancel) and the audit trail.
 */
export async function runApiRoutes(
  app: FastifyInstance,
  options: RunApiOptions,
  auth: HttpAuth,
  logger: Logger,
): Promise<void> {
  const operatorOf = new WeakMap<FastifyRequest, string>();
  app.setErrorHandler(jsonErrorHandler(logger));
  app.removeContentTypeParser("text/plain");

  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (auth.operators.size === 0) {
      return reply.code(503).send({
        error: "API_DISABLED",
        message: "the JSON API has no operator token configured (approvers[].token_env)",
      });
    }
    const check = await checkBearer(request, reply, auth);
    if (check.kind === "refused") return check.reply;
    if (check.kind === "metrics") {
      return reply.code(403).send({
        error: "FORBIDDEN",
        message:
          "the http.api_token_env token reads /metrics only and acts on no run; use your own token (approvers[].token_env)",
      });
    }
    operatorOf.set(request, check.id);
  });

  const refused = (err: unknown) => {
    const status = actionStatus(err);
    if (status === undefined || !(err instanceof RunnerError)) throw err;
    return { status, body: { error: err.code, message: err.message } };
  };

  app.get<{ Querystring: Record<string, unknown> }>("/api/runs", async (request, reply) => {
    const filter = runListFilterOf(request.query);
    if (!filter.ok) return reply.code(400).send({ error: "BAD_REQUEST", message: filter.message });
    try {
      const page = await options.inspector.listRunPage(filter.filter);
      return { runs: page.runs, next_cursor: page.nextCursor };
    } catch (err) {
      const { status, body } = refused(err);
      return reply.code(status).send(body);
    }
  });

  app.get<{ Params: { id: string } }>("/api/runs/:id", async (request, reply) => {
    try {
      return { run: await options.inspector.showRun(request.params.id) };
    } catch (err) {
      const { status, body } = refused(err);
      return reply.code(status).send(body);
    }
  });

  for (const action of RUN_ACTIONS) {
    app.post<{ Params: { id: string } }>(`/api/runs/:id/${action}`, async (request, reply) => {
      const operator = operatorOf.get(request);
      if (operator === undefined)
        return reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" });
      const body = ActionBody.safeParse(request.body ?? {});
      if (!body.success) {
        const issue = body.error.issues[0];
        return reply.code(400).send({
          error: "BAD_REQUEST",
          message: `${issue?.path.join(".") || "body"}: ${issue?.message}; expected {reason?, by?}`,
        });
      }
      const { by, reason } = body.data;
      if (by !== undefined && !sameIdentity(by, operator)) {
        return reply.code(403).send({
          error: "IDENTITY_MISMATCH",
          message: `this token belongs to "${operator}"; an action is recorded as the token's owner, and \`by\` may only name them`,
        });
      }
      try {
        const result = await performRunAction(
          options.actions,
          action as RunAction,
          request.params.id,
          { id: operator, via: "api" },
          reason ?? "",
        );
        logger.info({ operator, action, runId: request.params.id, status: result.status }, "run action");
        return result;
      } catch (err) {
        const { status, body: error } = refused(err);
        return reply.code(status).send(error);
      }
    });
  }
}
