/**
 * Canonical JSON: object keys sorted by code point at every depth, no whitespace, `undefined`
 * members dropped (as JSON.stringify does). Two argument objects that differ only in key order have
 * the same canonical form, so their hashes and idempotency keys are equal.
 * Non-finite numbers, functions, symbols and bigints are rejected rather than silently changed.
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
    if (Array.isArray(obj)) {
      return `[${obj.map((item) => (item === undefined ? "null" : write(item, seen))).join(",")}]`;
    }
    if (obj instanceof Date) return JSON.stringify(obj.toISOString());
    const entries = Object.keys(obj)
      .filter((key) => (obj as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${write((obj as Record<string, unknown>)[key], seen)}`);
    return `{${entries.join(",")}}`;
  } finally {
    seen.delete(obj);
  }
}
