export {
  assertSlackSigningSecret,
  SLACK_RESPONSE_ORIGIN,
  type SlackInteractionOptions,
  slackInteractionRoutes,
} from "./slack-interactions.js";
export { SLACK_TIMESTAMP_WINDOW_MS, slackSignature, verifySlackSignature } from "./slack-signature.js";
