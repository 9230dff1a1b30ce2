import { matchesToolPattern } from "./tool-lists.js";

/**
 * One job's `allowed_tools` (the per-job tool subset). A child job's list is checked against every
 * ancestor's: a tool must be in each list of the chain, so a child can never hold a tool its parent
 * lacked.
 */
export interface JobToolSubset {
  /** Whose list it is, for reasons ("job", "parent job", "job 7f3a"). */
  readonly label: string;
  /** Tool names or `prefix*` patterns. */
  readonly tools: readonly string[];
}

/** Why the job chain removes `name`, or undefined when every list in it includes the tool. */
export function jobSubsetRemoval(subsets: readonly JobToolSubset[], name: string): string | undefined {
  for (const subset of subsets) {
    if (!subset.tools.some((p) => matchesToolPattern(p, name))) {
      return `it is not in allowed_tools of ${subset.label}`;
    }
  }
  return undefined;
}

/** Outcome of {@link resolveChildToolSubset}. */
export interface ChildToolSubset {
  /** The child's tools: requested ∩ parent (or the parent's, when the child requested none). */
  readonly tools: readonly string[];
  /** Requested tools the parent does not hold; the child does not get them. */
  readonly refused: readonly string[];
}

/**
 * The tool subset of a child job: what it requested, limited to what its parent may use (the
 * parent's resolved allowed tools). A child that requests nothing inherits the parent's set.
 */
export function resolveChildToolSubset(
  parentAllowed: readonly string[],
  requested: readonly string[] | undefined,
): ChildToolSubset {
  if (requested === undefined) return { tools: [...parentAllowed], refused: [] };
  const parent = new Set(parentAllowed);
  const tools: string[] = [];
  const refused: string[] = [];
  for (const name of new Set(requested)) (parent.has(name) ? tools : refused).push(name);
  return { tools, refused };
}
