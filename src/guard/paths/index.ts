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
export { FS_ENTRY_KINDS, type FsEntryKind, type FsView, memoryFsView } from "./fs-view.js";
export {
  createPathFence,
  isInside,
  PATH_ACCESS,
  PATH_RULES,
  type PathAccess,
  type PathFence,
  type PathFenceOptions,
  type PathRule,
  type PathVerdict,
  type RealPath,
  resolveRealPath,
} from "./path-fence.js";
export { extractionLanding, writeTargets } from "./write-targets.js";
