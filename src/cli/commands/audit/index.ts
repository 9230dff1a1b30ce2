export { auditListCommand } from "./audit-list.js";
export { auditVerifyCommand } from "./audit-verify.js";
