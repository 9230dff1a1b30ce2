export { systemHostResolver } from "./dns-resolver.js";
export {
  configuredProxy,
  type NetworkProbeOptions,
  type NetworkProbeResult,
  parseHostPort,
  probeOutboundNetwork,
  type TcpProbe,
  tcpProbe,
} from "./network-probe.js";
export { nodeFsView, pathLookup } from "./node-fs.js";
