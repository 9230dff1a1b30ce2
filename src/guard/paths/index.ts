export {
  isBlockDevice,
  isCredentialFile,
  isPrivateKey,
  isProtectedDeleteTarget,
  isSystemPath,
  isSystemSecret,
  normaliseTarget,
  pathRelation,
  segmentRegex,
} from "./command-paths.js";
export { type FsEntryKind, type FsView, memoryFsView } from "./fs-view.js";
export { createPathFence, type PathAccess, type PathFence } from "./path-fence.js";
export { extractionLanding, writeTargets } from "./write-targets.js";
