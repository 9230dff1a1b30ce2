export { approvalsApproveCommand, approvalsDenyCommand } from "./approvals-decide.js";
export { approvalsGrantsListCommand, approvalsGrantsRevokeCommand } from "./approvals-grants.js";
export { approvalsListCommand } from "./approvals-list.js";
export { approvalsShowCommand } from "./approvals-show.js";
