export type { AdminHttpOptions } from "./admin-routes.js";
export { approvalApiRoutes } from "./approval-api.js";
export { type ApprovalHttpOptions, approvalHttpContext } from "./approval-http-context.js";
export { APPROVAL_CSS, confirmationPage, errorPage, statusPage } from "./approval-pages.js";
export { APPROVAL_PAGE_HEADERS, approvalPageRoutes } from "./approval-routes.js";
export { BASE_SECURITY_HEADERS, MAX_BODY_BYTES } from "./error-replies.js";
export { DEFAULT_FAILURE_LIMITS, type FailureLimits } from "./failure-throttle.js";
export type { MetricsHttpOptions } from "./metrics-route.js";
export {
  assertTokenStrength,
  MIN_TOKEN_LENGTH,
  OperatorCredentials,
  type OperatorToken,
} from "./operator-credentials.js";
export {
  CANCEL_WAIT_MS,
  performRunAction,
  RUN_ACTIONS,
  type RunAction,
  type RunActionReply,
  type RunActionsPort,
} from "./run-actions.js";
export type { RunApiOptions } from "./run-api.js";
export { createHttpServer, type HttpServerOptions } from "./server.js";
export { SLACK_RESPONSE_ORIGIN, type SlackInteractionOptions } from "./slack-interactions.js";
export { SLACK_TIMESTAMP_WINDOW_MS, slackSignature, verifySlackSignature } from "./slack-signature.js";
