import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  type DecideRefusal,
  describeRefusal,
  isApprovalId,
  MAX_COMMENT_LENGTH,
} from "../../approvals/index.js";
import { isRunnerError, sameIdentity } from "../../shared/index.js";
import { checkBearer } from "../auth/index.js";
import { applyBaseHeaders, jsonErrorHandler } from "../pages/index.js";
import type { ApprovalHttpContext } from "./approval-http-context.js";
import { grantApiRoutes } from "./grant-api.js";

const DecisionBody = z
  .object({
    decision: z.enum(APPROVAL_DECISIONS),
    /**
     * Optional: who the caller believes they are. The decision is always recorded as the token's
     * owner; a `by` naming anyone else (after normalisation) is refused, never recorded.
     */
    by: z.string().min(1).max(512).optional(),
    comment: z.string().max(MAX_COMMENT_LENGTH).optional(),
  })
  .strict();

const ListQuery = z.object({ status: z.enum([...APPROVAL_STATUSES, "all"]).default("pending") }).strict();

/** HTTP status of each refusal of a decision. */
const REFUSAL_STATUS: Readonly<Record<DecideRefusal, number>> = {
  not_found: 404,
  token_invalid: 404,
  token_used: 409,
  token_replaced: 409,
  not_pending: 409,
  expired: 409,
  self_approval: 403,
  always_not_allowed: 409,
  already_voted: 409,
  not_an_approver: 403,
  approver_removed: 403,
};

/**
 * The JSON API, for named operators: `GET /api/approvals?status=` (`{approvals, damaged}`: the
 * requests, and `{id, code, message}` of each that cannot be read), `GET /api/approvals/:id`,
 * `POST /api/approvals/:id/decision` ({decision, comment?, by?}); with `grants`, also the
 * allow-always grants (`GET /api/approvals/grants`, `POST /api/approvals/grants/:id/revoke`). Each operator has a token of their
 * own (`approvers[].token_env`); the decision is recorded as that person. Failed tokens are throttled
 * per address and globally before any other work; the read-only metrics token is refused here (403).
 * Without any operator token every call is refused (503).
 */
export async function approvalApiRoutes(app: FastifyInstance, ctx: ApprovalHttpContext): Promise<void> {
  const { store, auth } = ctx;
  const operatorOf = new WeakMap<FastifyRequest, string>();
  const errors = jsonErrorHandler(ctx.logger);
  // A damaged request decides nothing and is shown nothing; the caller is told why (not a bare 500).
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (!isRunnerError(error, "APPROVAL_CORRUPT")) return errors(error, request, reply);
    ctx.logger.warn({ code: error.code, error: error.message }, "api request met a damaged approval request");
    applyBaseHeaders(reply);
    return reply.code(409).send({ error: error.code, message: error.message });
  });
  // JSON only, as documented (any other type is 415), with the server's one size limit.
  app.removeContentTypeParser("text/plain");

  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (!auth || auth.operators.size === 0) {
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
          "the http.api_token_env token reads /metrics only and decides nothing; use your own token (approvers[].token_env)",
      });
    }
    operatorOf.set(request, check.id);
  });

  if (ctx.grants) grantApiRoutes(app, ctx.grants, (request) => operatorOf.get(request));

  app.get("/api/approvals", async (request, reply) => {
    const query = ListQuery.safeParse(request.query);
    if (!query.success) {
      return reply.code(400).send({
        error: "BAD_REQUEST",
        message: `status must be one of ${[...APPROVAL_STATUSES, "all"].join(", ")}`,
      });
    }
    const status = query.data.status === "all" ? undefined : query.data.status;
    if (status === "pending") await store.expireDue();
    // A request that cannot be read is named in `damaged`; it never hides the others.
    const { records, damaged } = await store.listWithDamaged({ status });
    return { approvals: records, damaged };
  });

  app.get<{ Params: { id: string } }>("/api/approvals/:id", async (request, reply) => {
    const record = isApprovalId(request.params.id) ? await store.get(request.params.id) : null;
    if (record === null)
      return reply.code(404).send({ error: "APPROVAL_NOT_FOUND", message: "no such request" });
    return { approval: record };
  });

  app.post<{ Params: { id: string } }>("/api/approvals/:id/decision", async (request, reply) => {
    const operator = operatorOf.get(request);
    if (operator === undefined)
      return reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" });
    const body = DecisionBody.safeParse(request.body);
    if (!body.success) {
      const issue = body.error.issues[0];
      return reply.code(400).send({
        error: "BAD_REQUEST",
        message: `${issue?.path.join(".") || "body"}: ${issue?.message}; expected {decision: ${APPROVAL_DECISIONS.join("|")}, comment?, by?}`,
      });
    }
    const { decision, by, comment } = body.data;
    if (by !== undefined && !sameIdentity(by, operator)) {
      return reply.code(403).send({
        error: "IDENTITY_MISMATCH",
        message: `this token belongs to "${operator}"; a decision is recorded as the token's owner, and \`by\` may only name them`,
      });
    }
    const result = await store.decide({
      id: request.params.id,
      actor: { kind: "operator", id: operator, via: "api" },
      decision,
      comment,
    });
    if (result.outcome === "decided") {
      return { outcome: result.outcome, final: result.final, approval: result.record };
    }
    return reply
      .code(REFUSAL_STATUS[result.outcome])
      .send({ outcome: result.outcome, message: describeRefusal(result.outcome), approval: result.record });
  });
}
