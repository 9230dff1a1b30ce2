export { AlertOutbox } from "./alert-outbox.js";
export { AlertReporter } from "./alert-reporter.js";
export { AlertSender } from "./alert-sender.js";
