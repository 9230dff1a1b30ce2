export { APPROVAL_CSS, confirmationPage, errorPage, statusPage, stepsPage } from "./approval-pages.js";
export {
  applyBaseHeaders,
  clientErrorReply,
  jsonErrorHandler,
  MAX_BODY_BYTES,
  rootErrorHandler,
  sendUnrouted,
} from "./error-replies.js";
