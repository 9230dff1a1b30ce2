export { hardInvocationFindings, hardRedirectFindings } from "./hard-families.js";
export { DownloadTracker, wrappedHardFindings } from "./indirect-families.js";
export { internalAddressAssignments } from "./internal-addresses.js";
export { interpreterFindings } from "./interpreter-families.js";
export { hiddenHardFindings, tooComplexFindings } from "./past-limits.js";
export { softInvocationFindings, softRedirectFindings } from "./soft-families.js";
export { redirectPatterns, variantsOf } from "./unknown-parts.js";
export { WrittenPrograms } from "./written-programs.js";
