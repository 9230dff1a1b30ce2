import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  APPROVAL_DECISIONS,
  type ApprovalDecision,
  type ApprovalRecord,
  type ApprovalStory,
  createPageNonce,
  describeRefusal,
  effectiveStatus,
  formatTime,
  isApprovalId,
  isBarredOwner,
  verifyPageNonce,
} from "../../approvals/index.js";
import { retryAfterSeconds } from "../auth/index.js";
import {
  APPROVAL_CSS,
  confirmationPage,
  errorPage,
  MAX_BODY_BYTES,
  statusPage,
  stepsPage,
} from "../pages/index.js";
import type { ApprovalHttpContext } from "./approval-http-context.js";

/**
 * Headers of every approval page: nothing cached or forwarded, no script at all, styles only from
 * this origin, forms only to this origin, never framed.
 */
export const APPROVAL_PAGE_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "content-security-policy":
    "default-src 'none'; style-src 'self'; img-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "x-robots-tag": "noindex, nofollow",
} as const;

/**
 * A client error Fastify raised before a route ran (a form over the body limit, a body that is not a
 * form or cannot be parsed, too many requests) keeps its own 4xx status; anything else is ours: 500.
 */
export function clientErrorStatus(statusCode: number | undefined): number {
  return statusCode !== undefined && statusCode >= 400 && statusCode < 500 ? statusCode : 500;
}

/** What a person sees for a client error; none of them decided anything. Others: "Bad request". */
const CLIENT_ERROR_PAGES: Readonly<Record<number, readonly [string, string]>> = {
  400: [
    "Bad request",
    "The form could not be read. Nothing was decided; open the link from your message again.",
  ],
  404: [
    "Not found",
    "There is nothing at this address. Open the link from your most recent approval message.",
  ],
  413: [
    "Form too large",
    "The form was larger than this page accepts (16 KB). Nothing was decided; open the link from your message again and decide with its buttons.",
  ],
  415: [
    "Form not accepted",
    "Only the form of this page is accepted. Nothing was decided; open the link from your message again and decide with its buttons.",
  ],
  429: [
    "Too many failed attempts",
    "This link was tried with too many wrong tokens. Wait a minute and open the link from your most recent message again.",
  ],
};

const INVALID_LINK = "This link is not valid. Open the link from your most recent approval message.";

/**
 * The pages approvers reach from their mail: `GET|HEAD /approvals/:id?t=` (shows, changes nothing),
 * `POST /approvals/:id/decision` (decides; failed tokens are throttled per request and per token,
 * never per address), and the stylesheet.
 */
export async function approvalPageRoutes(app: FastifyInstance, ctx: ApprovalHttpContext): Promise<void> {
  const { store, basePath } = ctx;
  const secret = await store.pageSecret();
  // The decision endpoint accepts what its page says: the form, nothing else (JSON or text is 415),
  // with the server's one size limit.
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: MAX_BODY_BYTES });

  app.addHook("onSend", async (_request, reply, payload) => {
    reply.headers(APPROVAL_PAGE_HEADERS);
    return payload;
  });
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    const status = clientErrorStatus(error.statusCode);
    const [title, message] =
      status === 500
        ? ["Something went wrong", "The request could not be handled. Nothing was decided; try again later."]
        : (CLIENT_ERROR_PAGES[status] ?? CLIENT_ERROR_PAGES[400]!);
    if (status === 500) ctx.logger.error({ err: error }, "approval page failed");
    return html(reply, status, errorPage(title, message, basePath));
  });

  const invalidLink = async (request: FastifyRequest, reply: FastifyReply, id: string, token: unknown) => {
    const method = request.method === "HEAD" ? "HEAD" : request.method === "POST" ? "POST" : "GET";
    const userAgent = request.headers["user-agent"];
    const wait = await ctx.linkFailures.fail(id, token, {
      at: Math.floor(store.clock.now()),
      method,
      ip: request.ip.slice(0, 64),
      userAgent: (typeof userAgent === "string" ? userAgent : "").slice(0, 300),
      id: isApprovalId(id) ? id : "(malformed)",
    });
    if (wait > 0) {
      reply.header("retry-after", retryAfterSeconds(wait));
      const [title, message] = CLIENT_ERROR_PAGES[429]!;
      return html(reply, 429, errorPage(title, message, basePath));
    }
    return html(reply, 404, errorPage("Link not valid", INVALID_LINK, basePath));
  };

  // Says which message replaced it: the newer one sent to this person at that time.
  const linkReplaced = (reply: FastifyReply, at: number) =>
    html(
      reply,
      410,
      errorPage(
        "Link replaced",
        `This link was replaced by a newer message to you, sent at ${formatTime(at)}; use the link in that message.`,
        basePath,
      ),
    );

  app.get("/assets/approval.css", async (_request, reply) =>
    reply.type("text/css; charset=utf-8").send(APPROVAL_CSS),
  );

  app.get<{ Params: { id: string }; Querystring: { t?: string } }>(
    "/approvals/:id",
    async (request, reply) => {
      const { id } = request.params;
      const token = request.query.t;
      const lookup = await store.lookupToken(id, token);
      if (lookup === null) return invalidLink(request, reply, id, token);
      // Only a valid token leaves a trace on the request: junk cannot push out the real fetches.
      await store.recordFetch(id, fetchOf(request, lookup.approver));
      const { record } = lookup;
      const status = effectiveStatus(record, store.clock.now());
      if (lookup.state === "replaced") return linkReplaced(reply, lookup.at);
      if (store.findApprover(lookup.approver) === null) {
        // Sent before its holder was taken off the approvers list: no form, and no more of the run.
        return html(reply, 403, statusPage(record, status, describeRefusal("approver_removed"), basePath));
      }
      if (lookup.state === "used" || status !== "pending") {
        const notice =
          lookup.state === "used"
            ? "You have already decided with this link."
            : describeRefusal("not_pending");
        return html(reply, 200, statusPage(record, status, notice, basePath));
      }
      if (isBarredOwner(record, { id: lookup.approver, email: null })) {
        // A link the owner got before forbid_self_approval stopped mailing them one: no form.
        return html(reply, 403, statusPage(record, status, describeRefusal("self_approval"), basePath));
      }
      const nonce = createPageNonce(secret, id, lookup.tokenHash, Math.floor(store.clock.now()));
      const story = ctx.story ? await readStory(ctx, record) : undefined;
      return html(
        reply,
        200,
        confirmationPage({
          record,
          approver: lookup.approver,
          token: token!,
          nonce,
          basePath,
          ...(story === undefined ? {} : { story }),
        }),
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: { t?: string } }>(
    "/approvals/:id/steps",
    async (request, reply) => {
      const { id } = request.params;
      const token = request.query.t;
      const lookup = await store.lookupToken(id, token);
      if (lookup === null) return invalidLink(request, reply, id, token);
      // Only a valid token leaves a trace on the request (as on the page itself).
      await store.recordFetch(id, fetchOf(request, lookup.approver));
      if (lookup.state === "replaced") return linkReplaced(reply, lookup.at);
      if (store.findApprover(lookup.approver) === null) {
        return html(
          reply,
          403,
          errorPage("No longer an approver", describeRefusal("approver_removed"), basePath),
        );
      }
      const back = `${basePath}/approvals/${encodeURIComponent(id)}?t=${encodeURIComponent(token!)}`;
      const story = ctx.story ? await readStory(ctx, lookup.record) : null;
      return html(reply, 200, stepsPage(lookup.record, story, back, basePath));
    },
  );

  const notHere = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header("allow", "POST");
    return html(
      reply,
      405,
      errorPage("Use the page", "Open the link from your message and decide with its buttons.", basePath),
    );
  };
  app.get("/approvals/:id/decision", notHere);

  app.post<{ Params: { id: string }; Body: Record<string, unknown> | undefined }>(
    "/approvals/:id/decision",
    { bodyLimit: MAX_BODY_BYTES },
    async (request, reply) => {
      const { id } = request.params;
      const body = request.body && typeof request.body === "object" ? request.body : {};
      const token = body.t;
      if (typeof token !== "string" || typeof body.nonce !== "string") {
        return html(
          reply,
          400,
          errorPage(
            "Incomplete form",
            "Nothing was decided: the form lacked its link token or nonce.",
            basePath,
          ),
        );
      }
      const lookup = await store.lookupToken(id, token);
      if (lookup === null) return invalidLink(request, reply, id, token);
      await store.recordFetch(id, fetchOf(request, lookup.approver));
      if (!verifyPageNonce(secret, id, lookup.tokenHash, body.nonce, store.clock.now())) {
        return html(
          reply,
          403,
          errorPage(
            "Page expired",
            "Nothing was decided: this form is stale or was not served here. Open your link again.",
            basePath,
          ),
        );
      }
      const decision = body.decision;
      if (typeof decision !== "string" || !(APPROVAL_DECISIONS as readonly string[]).includes(decision)) {
        return html(
          reply,
          400,
          errorPage("Bad request", "Nothing was decided: choose Approve or Deny.", basePath),
        );
      }
      const comment = typeof body.comment === "string" ? body.comment.slice(0, 2000) : "";
      const result = await store.decide({
        id,
        actor: { kind: "token", token },
        decision: decision as ApprovalDecision,
        comment,
      });
      if (result.record === null)
        return html(reply, 404, errorPage("Link not valid", INVALID_LINK, basePath));
      const status = effectiveStatus(result.record, store.clock.now());
      if (result.outcome !== "decided") {
        const code = result.outcome === "approver_removed" ? 403 : 409;
        return html(
          reply,
          code,
          statusPage(result.record, status, describeRefusal(result.outcome), basePath),
        );
      }
      const mine = result.record.decisions.at(-1);
      const notice = `Your decision (${decision}) was recorded at ${formatTime(mine?.at ?? 0)}.${
        result.final
          ? ""
          : ` ${result.record.requiredApprovals - result.record.decisions.length} more approval(s) needed.`
      }`;
      return html(reply, 200, statusPage(result.record, status, notice, basePath));
    },
  );
}

/** The run's story for one render; a failure to read it is logged and the page shows the call alone. */
async function readStory(ctx: ApprovalHttpContext, record: ApprovalRecord): Promise<ApprovalStory | null> {
  try {
    return (await ctx.story?.read(record)) ?? null;
  } catch (err) {
    ctx.logger.warn(
      { err, approvalId: record.id },
      "the run's story could not be read for the approval page",
    );
    return null;
  }
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}

function fetchOf(request: FastifyRequest, approver: string) {
  const method = request.method === "HEAD" ? "HEAD" : request.method === "POST" ? "POST" : "GET";
  const userAgent = request.headers["user-agent"];
  return {
    method,
    ip: request.ip,
    userAgent: typeof userAgent === "string" ? userAgent : "",
    approver,
  } as const;
}
