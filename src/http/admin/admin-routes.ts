import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Cluster, Redis } from "ioredis";
import {
  APPROVAL_VOTES,
  type ApprovalStore,
  type ApprovalVote,
  DECIDE_REFUSALS,
  type DecideRefusal,
  type DecideResult,
  describeRefusal,
  effectiveStatus,
  isApprovalId,
  secretsEqual,
} from "../../approvals/index.js";
import type { Logger } from "../../logging/index.js";
import { MetricsKeys, queueDepths } from "../../metrics/index.js";
import type { AgentQueue } from "../../queue/index.js";
import type { RunInspector, RunPage } from "../../runs/index.js";
import type { ScheduleService } from "../../scheduler/index.js";
import { type Clock, isRunnerError, RunnerError, systemClock } from "../../shared/index.js";
import {
  APPROVAL_PAGE_HEADERS,
  clientErrorStatus,
  type GrantsPort,
  revokeGrant,
} from "../approvals/index.js";
import type { HttpAuth } from "../auth/index.js";
import { retryAfterSeconds } from "../auth/index.js";
import { MAX_BODY_BYTES } from "../pages/index.js";
import {
  actionStatus,
  performRunAction,
  RUN_ACTIONS,
  type RunActionsPort,
  runListFilterOf,
} from "../runs/index.js";
import { GRANT_NOTICES } from "./admin-grants.js";
import { ADMIN_CSS, adminErrorPage, dashboardPage, loginPage, runPage } from "./admin-pages.js";
import { runListPage } from "./admin-run-list.js";
import { ADMIN_COOKIE, type AdminSession, AdminSessions, readCookie } from "./admin-sessions.js";

/** Runs per page of `/admin/runs`. */
const RUN_PAGE_SIZE = 50;

/** Options of the dashboard (see {@link HttpServerOptions.admin}). */
export interface AdminHttpOptions {
  /** `redis.key_prefix`: sessions live under it. */
  keyPrefix: string;
  /** `http.public_url`: its path prefixes every link; `https` makes the cookie Secure. */
  publicUrl: string;
  approvals: ApprovalStore;
  runs: Pick<RunInspector, "listRunPage" | "showRun">;
  /** Queues whose depths are shown (the agent queue). */
  queues: readonly AgentQueue[];
  /** Listed with the ones that cannot be read named apart. */
  schedules: Pick<ScheduleService, "listWithDamaged">;
  /** The allow-always grants, listed with a Revoke button; omitted = not shown. */
  grants?: GrantsPort;
  /** Cancel / retry / rerun buttons on the run page (RunOperations); omitted = no buttons. */
  actions?: RunActionsPort;
  clock?: Clock;
  /** How long a sign-in lasts, ms. Default 8 hours. */
  sessionTtlMs?: number;
}

/** Notices a redirect after a decision may ask for (never text from the URL itself). */
const DONE_NOTICES = {
  approved: "Approved: the parked run resumes.",
  denied: "Denied: the run continues without the call.",
  recorded: "Your approval was recorded; more approvals are needed.",
} as const;

/** Notices the run page may show after an action (never text from the URL itself). */
const RUN_NOTICES = {
  cancelled: "Cancelled: its approvals are withdrawn and it will not run again unless retried.",
  cancelling: "Cancel requested: its worker is stopping it.",
  retried: "Retried: the run resumes from its journal; completed calls are not repeated.",
  rerun: "Rerun started: this is the new run.",
} as const;

function runNotice(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(RUN_NOTICES, code)
    ? RUN_NOTICES[code as keyof typeof RUN_NOTICES]
    : null;
}

/**
 * `/admin`: sign-in form (the operator's own token → a session cookie carrying the identity that
 * token belongs to; the token never goes into a URL; failed sign-ins are throttled per address and
 * globally before any work), the dashboard (queues, pending approvals with approve / deny, recent runs, schedules) and one
 * page per run (audit entries, approvals, journal). Decisions go through the store's decide, as the
 * JSON API's do, recorded as the signed-in operator via `api`; every POST carries the session's CSRF
 * secret and the cookie is SameSite=Strict.
 */
export async function adminRoutes(
  app: FastifyInstance,
  options: AdminHttpOptions,
  redis: Redis | Cluster,
  logger: Logger,
  auth: HttpAuth,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(options.publicUrl);
  } catch {
    throw new RunnerError("CONFIG_INVALID", `public url is not a URL: ${JSON.stringify(options.publicUrl)}`);
  }
  const basePath = url.pathname.replace(/\/+$/, "");
  const clock = options.clock ?? systemClock;
  const sessions = new AdminSessions(redis, options.keyPrefix, options.sessionTtlMs ?? 8 * 3600 * 1000);
  const metricsKeys = new MetricsKeys(options.keyPrefix);
  const cookiePath = `${basePath}/admin`;
  const secure = url.protocol === "https:" ? "; Secure" : "";
  const signedIn = new WeakMap<FastifyRequest, { id: string; session: AdminSession }>();
  const login = `${basePath}/admin/login`;

  // Forms only, with the server's one size limit.
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: MAX_BODY_BYTES });

  app.addHook("onSend", async (_request, reply, payload) => {
    reply.headers(APPROVAL_PAGE_HEADERS);
    return payload;
  });
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    // A client error Fastify raised before the route (oversize or unreadable form) keeps its status.
    const status = clientErrorStatus(error.statusCode);
    if (status === 413) {
      return html(reply, 413, adminErrorPage(basePath, "Form too large", "Nothing was changed."));
    }
    if (status !== 500) {
      return html(reply, status, adminErrorPage(basePath, "Bad request", "The form could not be read."));
    }
    logger.error({ err: error }, "admin page failed");
    return html(
      reply,
      500,
      adminErrorPage(basePath, "Something went wrong", "Nothing was changed; try again."),
    );
  });

  app.addHook("onRequest", async (request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    if (path === "/admin/assets/admin.css") return;
    if (auth.operators.size === 0) {
      return html(
        reply,
        503,
        adminErrorPage(
          basePath,
          "Dashboard disabled",
          "No operator has a token, so nobody can sign in: give an approver `token_env`, naming an environment variable that holds their own token (at least 32 characters), and restart the runner.",
          false,
        ),
      );
    }
    if (path === "/admin/login") return;
    const id = readCookie(request.headers.cookie, ADMIN_COOKIE);
    const session = await sessions.get(id);
    // A session names a person who still has the very token it was opened with: removing someone
    // from the config (or their token), or rotating the token, ends their sessions, and a session
    // from before named operators never decides.
    const operator = session ? auth.operators.idOf(session.operator) : null;
    const binding = operator === null ? null : auth.operators.bindingOf(operator);
    if (id && session && operator !== null && binding !== null && secretsEqual(session.binding, binding)) {
      signedIn.set(request, { id, session: { ...session, operator } });
      return;
    }
    // Ended everywhere, not only on this request: the id opens nothing again.
    if (id && session) await sessions.destroy(id);
    if (request.method === "GET" || request.method === "HEAD") return reply.redirect(login, 303);
    return html(reply, 401, adminErrorPage(basePath, "Not signed in", "Sign in to the dashboard first."));
  });

  const current = (request: FastifyRequest) => {
    const entry = signedIn.get(request);
    if (!entry) throw new RunnerError("INTERNAL", "admin route reached without a session");
    return entry;
  };
  const csrfOk = (request: FastifyRequest, session: AdminSession) => {
    const body = request.body as Record<string, unknown> | undefined;
    return typeof body?.csrf === "string" && secretsEqual(body.csrf, session.csrf);
  };
  const staleForm = (reply: FastifyReply) =>
    html(
      reply,
      403,
      adminErrorPage(basePath, "Form expired", "Nothing was changed. Reload the dashboard and try again."),
    );

  app.get("/admin/assets/admin.css", async (_request, reply) =>
    reply.type("text/css; charset=utf-8").send(ADMIN_CSS),
  );

  app.get("/admin/login", async (_request, reply) => html(reply, 200, loginPage(basePath)));

  app.post("/admin/login", async (request, reply) => {
    // The token first (constant time, no I/O): a right token signs in however many others failed.
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = typeof body.token === "string" ? body.token : "";
    const operator = token ? auth.operators.identify(token) : null;
    if (operator === null) {
      const wait = await auth.throttle.retryAfterMs(request.ip);
      if (wait > 0) {
        reply.header("retry-after", retryAfterSeconds(wait));
        return html(
          reply,
          429,
          adminErrorPage(basePath, "Too many failed sign-ins", "Wait a minute and try again."),
        );
      }
      await auth.throttle.fail(request.ip, "sign_in");
      logger.warn({ ip: request.ip }, "admin sign-in refused: unknown token");
      return html(
        reply,
        401,
        loginPage(basePath, "That token belongs to no operator. Nothing was signed in."),
      );
    }
    const binding = auth.operators.bindingOf(operator);
    if (binding === null) throw new RunnerError("INTERNAL", `operator ${operator} has no token binding`);
    const id = await sessions.create(operator, binding, clock.now());
    reply.header(
      "set-cookie",
      `${ADMIN_COOKIE}=${id}; Path=${cookiePath}; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(sessions.ttlMs / 1000)}${secure}`,
    );
    logger.info({ operator }, "admin signed in");
    return reply.redirect(`${basePath}/admin`, 303);
  });

  app.post("/admin/logout", async (request, reply) => {
    const { id, session } = current(request);
    if (!csrfOk(request, session)) return staleForm(reply);
    await sessions.destroy(id);
    reply.header(
      "set-cookie",
      `${ADMIN_COOKIE}=; Path=${cookiePath}; HttpOnly; SameSite=Strict; Max-Age=0${secure}`,
    );
    return reply.redirect(login, 303);
  });

  app.get<{ Querystring: { notice?: string } }>("/admin", async (request, reply) => {
    const { session } = current(request);
    const now = clock.now();
    const [queues, pending, runs, schedules, grants, failingTargets] = await Promise.all([
      Promise.all(
        options.queues.map(async (q) => ({
          name: q.name,
          depths: await queueDepths(redis, metricsKeys, q, now),
        })),
      ),
      options.approvals.listWithDamaged({ status: "pending" }),
      options.runs.listRunPage({ limit: 25 }).then((p) => p.runs),
      options.schedules.listWithDamaged(),
      options.grants?.listWithDamaged(),
      options.approvals.failingTargets(),
    ]);
    return html(
      reply,
      200,
      dashboardPage(basePath, {
        operator: session.operator,
        csrf: session.csrf,
        notice: noticeFor(request.query.notice),
        queues,
        pending: pending.records.filter((r) => effectiveStatus(r, now) === "pending"),
        damagedPending: pending.damaged,
        runs,
        schedules: schedules.views,
        damagedSchedules: schedules.damaged,
        ...(grants ? { grants: grants.grants, damagedGrants: grants.damaged } : {}),
        failingTargets,
        now,
      }),
    );
  });

  app.get<{ Querystring: Record<string, unknown> }>("/admin/runs", async (request, reply) => {
    const { session } = current(request);
    const parsed = runListFilterOf(request.query, RUN_PAGE_SIZE);
    const filter = parsed.ok ? parsed.filter : {};
    let result: RunPage | { error: string };
    if (!parsed.ok) result = { error: parsed.message };
    else {
      try {
        result = await options.runs.listRunPage(filter);
      } catch (err) {
        if (!isRunnerError(err, "CLI_USAGE")) throw err;
        result = { error: err.message };
      }
    }
    const status = "error" in result ? 400 : 200;
    return html(reply, status, runListPage(basePath, session.operator, session.csrf, filter, result));
  });

  app.get<{ Params: { id: string }; Querystring: { notice?: string } }>(
    "/admin/runs/:id",
    async (request, reply) => {
      const { session } = current(request);
      try {
        const detail = await options.runs.showRun(request.params.id);
        return html(
          reply,
          200,
          runPage(
            basePath,
            session.operator,
            session.csrf,
            detail,
            runNotice(request.query.notice),
            Boolean(options.actions),
          ),
        );
      } catch (err) {
        if (isRunnerError(err) && (err.code === "RUN_NOT_FOUND" || err.code === "CLI_USAGE")) {
          const status = err.code === "RUN_NOT_FOUND" ? 404 : 400;
          return html(reply, status, adminErrorPage(basePath, "No such run", err.message));
        }
        throw err;
      }
    },
  );

  const { actions } = options;
  if (actions) {
    for (const action of RUN_ACTIONS) {
      app.post<{ Params: { id: string } }>(`/admin/runs/:id/${action}`, async (request, reply) => {
        const { session } = current(request);
        if (!csrfOk(request, session)) return staleForm(reply);
        const body = request.body as Record<string, unknown>;
        const reason = typeof body.reason === "string" ? body.reason.slice(0, 2000) : "";
        const runId = request.params.id;
        try {
          const result = await performRunAction(
            actions,
            action,
            runId,
            { id: session.operator, via: "admin" },
            reason,
          );
          logger.info(
            { operator: session.operator, action, runId, status: result.status },
            "admin run action",
          );
          const target = action === "rerun" ? (result.started ?? runId) : runId;
          const notice = action === "cancel" ? result.status : action === "retry" ? "retried" : "rerun";
          return reply.redirect(`${basePath}/admin/runs/${encodeURIComponent(target)}?notice=${notice}`, 303);
        } catch (err) {
          const status = actionStatus(err);
          if (status === undefined || !isRunnerError(err)) throw err;
          return html(reply, status, adminErrorPage(basePath, "Nothing was done", err.message));
        }
      });
    }
  }

  const { grants } = options;
  if (grants) {
    app.post<{ Params: { id: string } }>("/admin/grants/:id/revoke", async (request, reply) => {
      const { session } = current(request);
      if (!csrfOk(request, session)) return staleForm(reply);
      const revoked = await revokeGrant(grants, request.params.id, session.operator);
      logger.info(
        { operator: session.operator, grantId: request.params.id, revoked: revoked !== null },
        "admin revoked an allow-always grant",
      );
      return reply.redirect(`${basePath}/admin?notice=${revoked ? "grant_revoked" : "grant_not_found"}`, 303);
    });
  }

  app.post<{ Params: { id: string } }>("/admin/approvals/:id/decision", async (request, reply) => {
    const { session } = current(request);
    if (!csrfOk(request, session)) return staleForm(reply);
    const decision = (request.body as Record<string, unknown>).decision;
    if (!isApprovalId(request.params.id) || !(APPROVAL_VOTES as readonly unknown[]).includes(decision)) {
      return html(
        reply,
        400,
        adminErrorPage(basePath, "Bad request", "Nothing was decided: choose Approve or Deny."),
      );
    }
    let result: DecideResult;
    try {
      result = await options.approvals.decide({
        id: request.params.id,
        actor: { kind: "operator", id: session.operator, via: "api" },
        decision: decision as ApprovalVote,
        comment: "decided on the dashboard",
      });
    } catch (err) {
      // A damaged request decides nothing (fail closed); the operator is told why, not "try again".
      if (!isRunnerError(err, "APPROVAL_CORRUPT")) throw err;
      logger.warn({ operator: session.operator, error: err.message }, "admin decision on a damaged request");
      return html(reply, 409, adminErrorPage(basePath, "Nothing was decided", err.message));
    }
    let notice: string = result.outcome;
    if (result.outcome === "decided") {
      notice = result.final ? (result.record.status === "approved" ? "approved" : "denied") : "recorded";
    }
    logger.info(
      { operator: session.operator, approvalId: request.params.id, decision, outcome: result.outcome },
      "admin decision",
    );
    return reply.redirect(`${basePath}/admin?notice=${notice}`, 303);
  });
}

function noticeFor(code: string | undefined): string | null {
  if (code === undefined) return null;
  if (Object.hasOwn(DONE_NOTICES, code)) return DONE_NOTICES[code as keyof typeof DONE_NOTICES];
  if (Object.hasOwn(GRANT_NOTICES, code)) return GRANT_NOTICES[code as keyof typeof GRANT_NOTICES];
  if ((DECIDE_REFUSALS as readonly string[]).includes(code)) {
    return `Nothing was decided: ${describeRefusal(code as DecideRefusal)}`;
  }
  return null;
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}
