/**
 * Canonical JSON: object keys sorted by code point at every depth, no whitespace, `undefined`
 * members dropped (as JSON.stringify does). Two argument objects that differ only in key order have
 * the same canonical form, so their hashes and idempotency keys are equal.
 * Non-finite numbers, functions, symbols and bigints are rejected rather than silently changed.
 *
 * Every tool call encodes several values (its arguments, its result, two audit entries), so the
 * writer builds one string with plain loops: no per-object filter/map/join arrays.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return JSON.stringify(value);
    case "object":
      break;
    default:
      throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  }
  const obj = value as object;
  if (seen.has(obj)) throw new TypeError("canonicalJson: circular structure");
  seen.add(obj);
  try {
    if (Array.isArray(obj)) return writeArray(obj, seen);
    if (obj instanceof Date) return JSON.stringify(obj.toISOString());
    return writeObject(obj as Record<string, unknown>, seen);
  } finally {
    seen.delete(obj);
  }
}

function writeArray(items: readonly unknown[], seen: Set<object>): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (i > 0) out += ",";
    out += item === undefined ? "null" : write(item, seen);
  }
  return `${out}]`;
}

function writeObject(obj: Record<string, unknown>, seen: Set<object>): string {
  // Object.keys returns a fresh array, so sorting it in place is safe; the default sort compares
  // UTF-16 code units, as the canonical form always has.
  const keys = Object.keys(obj).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const item = obj[key];
    if (item === undefined) continue;
    if (!first) out += ",";
    first = false;
    out += `${JSON.stringify(key)}:${write(item, seen)}`;
  }
  return `${out}}`;
}
