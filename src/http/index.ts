export { assertTokenStrength, type FailureLimits, OperatorCredentials } from "./auth/index.js";
export { performRunAction, type RunAction, type RunActionReply } from "./runs/index.js";
export { createHttpServer } from "./server.js";
export type { SlackInteractionOptions } from "./slack/index.js";
