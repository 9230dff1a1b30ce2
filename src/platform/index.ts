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
export { ROUTE_TABLE_PATHS, readRouteTables } from "./read-route-tables.js";
export {
  findDefaultRoute,
  parseIpv4RouteTable,
  parseIpv6RouteTable,
  type Route,
  type RouteTables,
} from "./route-table.js";
export { createCommandGuard, createShellParser, type ShellParserOptions } from "./shell-parser.js";
