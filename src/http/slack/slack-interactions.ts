import type { FastifyInstance, FastifyReply } from "fastify";
import type { Cluster, Redis } from "ioredis";
import { z } from "zod";
import { type ApprovalStore, isApprovalId } from "../../approvals/index.js";
import type { Logger } from "../../logging/index.js";
import { type ErrorCode, RunnerError } from "../../shared/index.js";
import { type AuthFailureThrottle, retryAfterSeconds } from "../auth/index.js";
import { jsonErrorHandler, MAX_BODY_BYTES } from "../pages/index.js";
import {
  ephemeral,
  SLACK_ACTIONS,
  type SlackActionId,
  type SlackEphemeral,
  slackDecisionText,
  unknownSlackUserText,
} from "./slack-answers.js";
import { SlackReplayGuard } from "./slack-replay-guard.js";
import { verifySlackSignature } from "./slack-signature.js";

/** Where Slack sends a message's `response_url` (the only origin an answer is posted to by default). */
export const SLACK_RESPONSE_ORIGIN = "https://hooks.slack.com";

/** Options of `POST /slack/interactions` (the Slack app's Interactivity Request URL). */
export interface SlackInteractionOptions {
  store: ApprovalStore;
  /** The Slack app's Signing Secret (`notifications.slack.signing_secret_env`); at least 32 characters. */
  signingSecret: string;
  /** The approver id a Slack user id maps to on today's `approvers` (`slack_user_id`), or null. */
  approverOf(slackUserId: string): string | null;
  /**
   * Origins a payload's `response_url` may have for the ephemeral answer to be posted there. Default
   * [{@link SLACK_RESPONSE_ORIGIN}]: a signed payload comes from Slack, but the runner posts to no
   * other host on its word.
   */
  responseUrlOrigins?: readonly string[];
}

/** Shortest signing secret accepted (Slack's are 32 hexadecimal characters). */
export const MIN_SLACK_SECRET_LENGTH = 32;

/** Fails closed at start on a signing secret too short to be Slack's (a placeholder, a typo). */
export function assertSlackSigningSecret(secret: string): void {
  if (secret.length < MIN_SLACK_SECRET_LENGTH) {
    throw new RunnerError(
      "CONFIG_INVALID",
      `notifications.slack.signing_secret_env holds a secret of ${secret.length} characters; Slack's signing secrets have ${MIN_SLACK_SECRET_LENGTH} (the Slack app's Basic Information → App Credentials → Signing Secret)`,
      { data: { minLength: MIN_SLACK_SECRET_LENGTH } },
    );
  }
}

/** The part of a `block_actions` payload the runner reads (Slack sends much more). */
const BlockActions = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string().regex(/^[UW][A-Z0-9]{2,31}$/) }),
  actions: z
    .array(z.object({ action_id: z.string(), value: z.string().optional() }))
    .min(1)
    .max(1),
  response_url: z.string().optional(),
});

/** The code of a refusal: the catalogue's, or the throttle's 429 that every credential path answers. */
function refuse(
  reply: FastifyReply,
  status: number,
  error: ErrorCode | "TOO_MANY_FAILURES",
  message: string,
) {
  return reply.code(status).send({ error, message });
}

/**
 * `POST /slack/interactions`: Slack's Approve / Deny clicks. Nothing in a request is read before its
 * v0 signature and timestamp are verified and its signature is seen for the first time (a replay is
 * refused); then the clicker's Slack user id must map to an approver, who decides through
 * `ApprovalStore.decide` like every other path (quorum, self-approval, today's list, the record's
 * trail `via: slack`). The answer is ephemeral: the clicker alone sees it.
 */
export async function slackInteractionRoutes(
  app: FastifyInstance,
  options: SlackInteractionOptions,
  redis: Redis | Cluster,
  keyPrefix: string,
  logger: Logger,
  throttle: AuthFailureThrottle,
): Promise<void> {
  const { store } = options;
  const replays = new SlackReplayGuard(redis, keyPrefix);
  const origins = options.responseUrlOrigins ?? [SLACK_RESPONSE_ORIGIN];
  // The signature covers the body's exact bytes: it is kept as text and parsed only once verified.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.setErrorHandler(jsonErrorHandler(logger));

  const answer = (reply: FastifyReply, responseUrl: string | undefined, body: SlackEphemeral) => {
    if (responseUrl !== undefined) postAnswer(responseUrl, body, origins, logger);
    return reply.code(200).send(body);
  };

  app.post("/slack/interactions", async (request, reply) => {
    const raw = typeof request.body === "string" ? request.body : "";
    const headers = {
      timestamp: request.headers["x-slack-request-timestamp"],
      signature: request.headers["x-slack-signature"],
    };
    const refusal = verifySlackSignature(options.signingSecret, headers, raw, store.clock.now());
    // A verified request is never throttled because others failed; a failed one meets the
    // server's failure limits (per address and global) before it is counted, like a bad bearer.
    if (refusal !== null) {
      const wait = await throttle.retryAfterMs(request.ip);
      if (wait > 0) {
        reply.header("retry-after", retryAfterSeconds(wait));
        return refuse(reply, 429, "TOO_MANY_FAILURES", "too many failed requests; try again later");
      }
      await throttle.fail(request.ip, "slack_signature");
    }
    if (refusal === "stale") {
      logger.warn("slack interaction refused: timestamp outside the 5-minute window");
      return refuse(
        reply,
        401,
        "SLACK_REQUEST_STALE",
        "X-Slack-Request-Timestamp is missing or more than 5 minutes from the runner's clock; nothing was decided",
      );
    }
    if (refusal === "invalid") {
      logger.warn("slack interaction refused: bad signature");
      return refuse(
        reply,
        401,
        "SLACK_SIGNATURE_INVALID",
        "X-Slack-Signature is not the v0 signature of this request under the configured signing secret; nothing was decided",
      );
    }
    if (!(await replays.firstSeen(headers.signature as string))) {
      logger.warn("slack interaction refused: replayed request");
      return refuse(
        reply,
        409,
        "SLACK_REQUEST_REPLAYED",
        "this signed request was already presented; nothing was decided",
      );
    }
    let payload: z.infer<typeof BlockActions>;
    try {
      const parsed = BlockActions.safeParse(JSON.parse(new URLSearchParams(raw).get("payload") ?? ""));
      if (!parsed.success) return reply.code(200).send(ephemeral("The runner only answers its own buttons."));
      payload = parsed.data;
    } catch {
      return reply.code(200).send(ephemeral("The runner only answers its own buttons."));
    }
    const action = payload.actions[0]!;
    const responseUrl = payload.response_url;
    const slackUserId = payload.user.id;
    if (!(action.action_id in SLACK_ACTIONS) || !isApprovalId(action.value)) {
      return answer(reply, responseUrl, ephemeral("The runner only answers its own buttons."));
    }
    const decision = SLACK_ACTIONS[action.action_id as SlackActionId];
    const approver = options.approverOf(slackUserId);
    if (approver === null) {
      logger.warn({ slackUserId, approvalId: action.value }, "slack click by a user who is no approver");
      return answer(reply, responseUrl, ephemeral(unknownSlackUserText(slackUserId)));
    }
    const result = await store.decide({
      id: action.value,
      actor: { kind: "slack", id: approver, slackUserId },
      decision,
    });
    logger.info(
      { approvalId: action.value, approver, slackUserId, outcome: result.outcome },
      "slack decision",
    );
    return answer(reply, responseUrl, ephemeral(slackDecisionText(result, decision)));
  });
}

/**
 * Posts the ephemeral answer to the payload's response_url when its origin is allowed; without
 * waiting (Slack wants the 200 within 3 s). The URL is a capability: it is never logged.
 */
function postAnswer(url: string, body: SlackEphemeral, origins: readonly string[], logger: Logger): void {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return;
  }
  if (!origins.includes(origin)) {
    logger.warn({ origin }, "slack response_url not on an allowed origin; answered in the reply only");
    return;
  }
  void fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    redirect: "error",
    signal: AbortSignal.timeout(10_000),
  })
    .then((response) => response.body?.cancel())
    .catch((err: unknown) => logger.warn({ err: (err as Error).message }, "slack answer not delivered"));
}
