export {
  checkExecNetwork,
  EXEC_NETWORK_RULES,
  type ExecNetworkOptions,
  type ExecNetworkRule,
  type ExecNetworkVerdict,
} from "./exec-network.js";
export { type AddressClass, classifyAddress } from "./ip-ranges.js";
export {
  commandNetworkTargets,
  invocationTargets,
  type NetworkTarget,
  redirectTargets,
} from "./network-targets.js";
export {
  checkHost,
  checkHostWithAddresses,
  checkUrl,
  checkUrlWithAddresses,
  FETCHABLE_SCHEMES,
  type HostResolver,
  inspectHost,
  inspectUrl,
  URL_RULES,
  type UrlRule,
  type UrlTarget,
  type UrlVerdict,
} from "./ssrf.js";
