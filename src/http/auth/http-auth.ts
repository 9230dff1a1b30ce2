import type { FastifyReply, FastifyRequest } from "fastify";
import type { AuthFailureThrottle } from "./failure-throttle.js";
import { retryAfterSeconds } from "./failure-throttle.js";
import { bearerOf, type OperatorCredentials, tokenMatches } from "./operator-credentials.js";

/** Who may call the authenticated routes, and the throttle of failed attempts. */
export interface HttpAuth {
  /** The named operators' tokens (`approvers[].token_env`): the API and `/admin`. */
  operators: OperatorCredentials;
  /** The read-only token (`http.api_token_env`): reads `/metrics`, decides nothing. */
  metricsToken?: string | undefined;
  throttle: AuthFailureThrottle;
}

/** What a bearer request turned out to carry. */
export type BearerCheck =
  | { kind: "operator"; id: string }
  | { kind: "metrics" }
  | { kind: "refused"; reply: FastifyReply };

/**
 * Checks a bearer request: first the token (constant-time digest compares, no I/O), so a valid
 * credential is never refused because others failed (else 300 wrong bearers from 30
 * addresses made every valid token answer 429); only then, for a token that matched nothing,
 * whether its address (or everyone) is throttled — 429 before any other work — and else it counts
 * as a failure of its address. The metrics token is recognised (so the API can say it reads
 * metrics only) and never counted. Replies itself when refused.
 */
export async function checkBearer(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: HttpAuth,
): Promise<BearerCheck> {
  const presented = bearerOf(request.headers.authorization);
  const id = presented ? auth.operators.identify(presented) : null;
  if (id !== null) return { kind: "operator", id };
  if (presented && tokenMatches(presented, auth.metricsToken)) return { kind: "metrics" };
  const wait = await auth.throttle.retryAfterMs(request.ip);
  if (wait > 0) {
    reply.header("retry-after", retryAfterSeconds(wait));
    return {
      kind: "refused",
      reply: reply
        .code(429)
        .send({ error: "TOO_MANY_FAILURES", message: "too many failed credentials; try again later" }),
    };
  }
  await auth.throttle.fail(request.ip);
  reply.header("www-authenticate", 'Bearer realm="echo-runner"');
  return {
    kind: "refused",
    reply: reply.code(401).send({ error: "UNAUTHORIZED", message: "a valid bearer token is required" }),
  };
}
