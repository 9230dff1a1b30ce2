export { checkOneCall, gateCheckCommand } from "./gate-check.js";
export { policyExplainCommand } from "./policy-explain.js";
