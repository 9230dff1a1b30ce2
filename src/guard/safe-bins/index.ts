export { DEFAULT_SAFE_BIN_PROFILES, resolveSafeBinProfiles } from "./safe-bin-profiles.js";
export {
  compileSafeBinProfile,
  type SafeBinProfile,
  type SafeBinProfileConfig,
  validateSafeBinArgv,
} from "./safe-bins.js";
