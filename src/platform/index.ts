export { systemHostResolver } from "./dns-resolver.js";
export { probeOutboundNetwork, type TcpProbe } from "./network-probe.js";
export { nodeFsView, pathLookup } from "./node-fs.js";
export type { RouteTables } from "./route-table.js";
export { createCommandGuard, createShellParser } from "./shell-parser.js";
