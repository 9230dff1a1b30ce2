export { checkExecNetwork } from "./exec-network.js";
export { classifyAddress } from "./ip-ranges.js";
export {
  commandNetworkTargets,
  invocationTargets,
  type NetworkTarget,
  redirectTargets,
} from "./network-targets.js";
export { checkUrl, checkUrlWithAddresses, type HostResolver, inspectHost, type UrlVerdict } from "./ssrf.js";
