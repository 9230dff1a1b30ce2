import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  APPROVAL_DECISIONS,
  APPROVAL_STATUSES,
  describeRefusal,
  isApprovalId,
  MAX_COMMENT_LENGTH,
  secretsEqual,
} from "../approvals/index.js";
import {
  type ApprovalHttpContext,
  decisionRateLimit,
  rateLimitPluginOptions,
  reportDecided,
} from "./approval-http-context.js";

const DecisionBody = z
  .object({
    decision: z.enum(APPROVAL_DECISIONS),
    /** Who decides (the API client's user); recorded as the approver. */
    by: z.string().min(1).max(512),
    comment: z.string().max(MAX_COMMENT_LENGTH).optional(),
  })
  .strict();

const ListQuery = z.object({ status: z.enum([...APPROVAL_STATUSES, "all"]).default("pending") }).strict();

/**
 * The JSON API behind a bearer token: `GET /api/approvals?status=`, `GET /api/approvals/:id`,
 * `POST /api/approvals/:id/decision` ({decision, by, comment?}). The token is compared in constant
 * time; without a configured token every call is refused (503).
 */
export async function approvalApiRoutes(app: FastifyInstance, ctx: ApprovalHttpContext): Promise<void> {
  const { store } = ctx;
  await app.register(rateLimit, rateLimitPluginOptions(ctx, "api"));

  app.addHook("onRequest", async (request, reply) => {
    reply.header("cache-control", "no-store");
    if (!ctx.apiToken) {
      return reply
        .code(503)
        .send({ error: "API_DISABLED", message: "the JSON API has no bearer token configured" });
    }
    const header = request.headers.authorization;
    const presented = typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!secretsEqual(presented, ctx.apiToken)) {
      reply.header("www-authenticate", 'Bearer realm="echo-runner"');
      return reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" });
    }
  });

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
    return { approvals: await store.list({ status }) };
  });

  app.get<{ Params: { id: string } }>("/api/approvals/:id", async (request, reply) => {
    const record = isApprovalId(request.params.id) ? await store.get(request.params.id) : null;
    if (record === null)
      return reply.code(404).send({ error: "APPROVAL_NOT_FOUND", message: "no such request" });
    return { approval: record };
  });

  app.post<{ Params: { id: string } }>(
    "/api/approvals/:id/decision",
    { config: { rateLimit: decisionRateLimit(ctx) } },
    async (request, reply) => {
      const body = DecisionBody.safeParse(request.body);
      if (!body.success) {
        const issue = body.error.issues[0];
        return reply.code(400).send({
          error: "BAD_REQUEST",
          message: `${issue?.path.join(".") || "body"}: ${issue?.message}; expected {decision: ${APPROVAL_DECISIONS.join("|")}, by, comment?}`,
        });
      }
      const { decision, by, comment } = body.data;
      const result = await store.decide({
        id: request.params.id,
        actor: { kind: "operator", id: by, via: "api" },
        decision,
        comment,
      });
      if (result.outcome === "decided") {
        if (result.final) await reportDecided(ctx, result.record);
        return { outcome: result.outcome, final: result.final, approval: result.record };
      }
      const code = result.outcome === "not_found" ? 404 : 409;
      return reply
        .code(code)
        .send({ outcome: result.outcome, message: describeRefusal(result.outcome), approval: result.record });
    },
  );
}
