export type { AdminHttpOptions } from "./admin/index.js";
export {
  APPROVAL_PAGE_HEADERS,
  type ApprovalHttpOptions,
  approvalApiRoutes,
  approvalHttpContext,
  approvalPageRoutes,
} from "./approvals/index.js";
export {
  assertTokenStrength,
  DEFAULT_FAILURE_LIMITS,
  type FailureLimits,
  MIN_TOKEN_LENGTH,
  OperatorCredentials,
  type OperatorToken,
} from "./auth/index.js";
export type { MetricsHttpOptions } from "./metrics-route.js";
export {
  APPROVAL_CSS,
  BASE_SECURITY_HEADERS,
  confirmationPage,
  errorPage,
  MAX_BODY_BYTES,
  statusPage,
} from "./pages/index.js";
export type { RunApiOptions } from "./runs/index.js";
export {
  CANCEL_WAIT_MS,
  performRunAction,
  RUN_ACTIONS,
  type RunAction,
  type RunActionReply,
  type RunActionsPort,
} from "./runs/index.js";
export { createHttpServer, type HttpServerOptions } from "./server.js";
export {
  SLACK_RESPONSE_ORIGIN,
  SLACK_TIMESTAMP_WINDOW_MS,
  type SlackInteractionOptions,
  slackSignature,
  verifySlackSignature,
} from "./slack/index.js";
