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
    // Own keys only: `in` would find `constructor` or `__proto__` on every object.
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return { found: false, value: undefined };
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
    // A YAML key `__proto__` is an own key of the parsed source. Reading or assigning it with
    // `target[key]` would reach Object.prototype and merge the source's values into every object of
    // the process; kept as an own key, schema validation reports it as an unknown key instead.
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isPlainObject(value) && isPlainObject(existing)) {
      mergeInto(existing, value, origin, path, origins);
      continue;
    }
    Object.defineProperty(target, key, {
      value: isPlainObject(value) ? structuredClone(value) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    for (const existing of [...origins.keys()]) if (existing.startsWith(`${path}.`)) origins.delete(existing);
    origins.set(path, [origin]);
  }
}

/**
 * Merges sources (lowest precedence first). Later sources replace earlier values, except:
 * - every list in UNION_LIST_KEYS is the union over all sources (a deny anywhere stays a deny); a
 *   value that is not a list, in any source, is kept as is so validation reports it;
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
    if (setBy.length === 0) continue;
    // A value that is not a list anywhere is kept, so validation reports it: letting a later source
    // replace it would drop every earlier source's denies (`deny: exec` in one file, a list after it).
    const invalid = setBy.find((entry) => !Array.isArray(entry.value));
    if (invalid) {
      setAt(data, path, invalid.value);
      origins.set(dotted, [invalid.origin]);
      continue;
    }
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
  followListenAddress(sources, data, origins);
  return { data, origins };
}

/**
 * `http.public_url`, the base of every approval link, follows `http.host` and `http.port` unless a
 * non-default source sets it: the built-in `http://127.0.0.1:8787` would otherwise stay in the links
 * after the port is changed (`ECHO_RUNNER_HTTP__PORT=9000`). A wildcard address is reached on
 * loopback. Values that are not a host and a port are left for validation to report.
 */
function followListenAddress(
  sources: readonly ConfigSource[],
  data: Record<string, unknown>,
  origins: Map<string, string[]>,
): void {
  const setByOperator = sources.some(
    (s) => s.kind !== "default" && getAt(s.data, ["http", "public_url"]).found,
  );
  if (setByOperator) return;
  const host = getAt(data, ["http", "host"]).value;
  const port = getAt(data, ["http", "port"]).value;
  // Port 0 (the system picks one) is kept as :0 here; the process puts the bound port in its place.
  if (typeof host !== "string" || host === "" || !Number.isInteger(port) || (port as number) < 0) return;
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const bracketed = reachable.includes(":") ? `[${reachable}]` : reachable;
  setAt(data, ["http", "public_url"], `http://${bracketed}:${port}`);
  origins.set("http.public_url", [
    ...new Set([...(origins.get("http.host") ?? []), ...(origins.get("http.port") ?? [])]),
  ]);
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
