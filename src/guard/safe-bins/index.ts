export { DEFAULT_SAFE_BIN_PROFILES, resolveSafeBinProfiles } from "./safe-bin-profiles.js";
export {
  compileSafeBinProfile,
  NEVER_SAFE_BINS,
  type SafeBinCheck,
  type SafeBinProfile,
  type SafeBinProfileConfig,
  validateSafeBinArgv,
} from "./safe-bins.js";
