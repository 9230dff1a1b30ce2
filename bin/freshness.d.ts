// Types of freshness.js (plain JavaScript, run by the bin before anything is compiled).
export declare const SOURCE_DIRS: readonly string[];
export declare const TEST_ENTRY_DIRS: readonly string[];
export declare const STAMP: string;
export declare function isSource(name: string): boolean;
export declare function newestSource(
  root: string,
  dirs?: readonly string[],
): { path: string; mtimeMs: number } | null;
export declare function buildState(
  root: string,
  dirs?: readonly string[],
): { state: "fresh" } | { state: "missing" } | { state: "stale"; source: string };
