export { systemHostResolver } from "./dns-resolver.js";
export { nodeFsView, pathLookup } from "./node-fs.js";
