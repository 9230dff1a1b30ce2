import { SECURITY_ORDERED_KEYS, UNION_LIST_KEYS } from "./schema.js";
import type { ConfigSource } from "./sources.js";

/** The merged raw config and, for every leaf path, the origins that decided its value. */
export interface MergedConfig {
  data: Record<string, unknown>;
  origins: Map<string, string[]>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function getAt(data: unknown, path: readonly string[]): { found: boolean; value: unknown } {
  let node: unknown = data;
  for (const segment of path) {
    if (Array.isArray(node) && /^\d+$/.test(segment) && Number(segment) < node.length) {
      node = node[Number(segment)];
      continue;
    }
    if (!isPlainObject(node) || !(segment in node)) return { found: false, value: undefined };
    node = node[segment];
  }
  return { found: true, value: node };
}

function setAt(data: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = data;
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(node[segment])) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}

function mergeInto(
  target: Record<string, unknown>,
  incoming: Record<string, unknown>,
  origin: string,
  prefix: string,
  origins: Map<string, string[]>,
): void {
  for (const [key, value] of Object.entries(incoming)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isPlainObject(value) && isPlainObject(target[key])) {
      mergeInto(target[key] as Record<string, unknown>, value, origin, path, origins);
      continue;
    }
    target[key] = isPlainObject(value) ? structuredClone(value) : value;
    for (const existing of [...origins.keys()]) if (existing.startsWith(`${path}.`)) origins.delete(existing);
    origins.set(path, [origin]);
  }
}

/**
 * Merges sources (lowest precedence first). Later sources replace earlier values, except:
 * - every list in UNION_LIST_KEYS is the union over all sources (a deny anywhere stays a deny);
 * - every key in SECURITY_ORDERED_KEYS takes the strictest value that any non-default source sets
 *   (the built-in default applies only when no other source sets it). A value outside the allowed
 *   set is kept as is, so validation reports it instead of it being skipped.
 */
export function mergeSources(sources: readonly ConfigSource[]): MergedConfig {
  const data: Record<string, unknown> = {};
  const origins = new Map<string, string[]>();
  for (const source of sources) mergeInto(data, source.data, source.origin, "", origins);

  for (const dotted of UNION_LIST_KEYS) {
    const path = dotted.split(".");
    const setBy = sources
      .map((s) => ({ origin: s.origin, ...getAt(s.data, path) }))
      .filter((entry) => entry.found);
    if (setBy.length === 0 || !setBy.every((entry) => Array.isArray(entry.value))) continue;
    const union: unknown[] = [];
    for (const entry of setBy)
      for (const item of entry.value as unknown[]) if (!union.includes(item)) union.push(item);
    setAt(data, path, union);
    origins.set(
      dotted,
      setBy.map((entry) => entry.origin),
    );
  }

  for (const [dotted, order] of Object.entries(SECURITY_ORDERED_KEYS)) {
    const path = dotted.split(".");
    const setBy = sources
      .filter((s) => s.kind !== "default")
      .map((s) => ({ origin: s.origin, ...getAt(s.data, path) }))
      .filter((entry) => entry.found);
    if (setBy.length === 0) continue;
    const allowed = order as readonly unknown[];
    const invalid = setBy.find((entry) => !allowed.includes(entry.value));
    const winner =
      invalid ??
      setBy.reduce((best, entry) =>
        allowed.indexOf(entry.value) > allowed.indexOf(best.value) ? entry : best,
      );
    setAt(data, path, winner.value);
    origins.set(dotted, [winner.origin]);
  }
  return { data, origins };
}

/** The origins recorded for a path, or for its nearest ancestor. */
export function originsOf(
  origins: ReadonlyMap<string, readonly string[]>,
  dotted: string,
): readonly string[] {
  let path = dotted;
  for (;;) {
    const found = origins.get(path);
    if (found) return found;
    const cut = path.lastIndexOf(".");
    if (cut < 0) return [];
    path = path.slice(0, cut);
  }
}

export { getAt as valueAtPath };
