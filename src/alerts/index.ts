export { Alert, alertGroup } from "./alert.js";
export { alertChatPayload } from "./alert-chat.js";
export {
  adminLink,
  alertLine,
  alertTitle,
  composeAlertMail,
  MAX_LISTED_ALERTS,
} from "./alert-message.js";
export { type AlertBatch, AlertOutbox, type AlertOutboxOptions } from "./alert-outbox.js";
export { AlertReporter, type AlertReporterOptions, type AlertRun } from "./alert-reporter.js";
export { AlertSender, type AlertSenderOptions, type AlertSweep } from "./alert-sender.js";
