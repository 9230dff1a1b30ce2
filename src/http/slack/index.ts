export {
  assertSlackSigningSecret,
  type SlackInteractionOptions,
  slackInteractionRoutes,
} from "./slack-interactions.js";
