export { approvalApiRoutes } from "./approval-api.js";
export { type ApprovalHttpOptions, approvalHttpContext } from "./approval-http-context.js";
export { APPROVAL_PAGE_HEADERS, approvalPageRoutes, clientErrorStatus } from "./approval-routes.js";
export { type GrantsPort, revokeGrant } from "./grant-api.js";
