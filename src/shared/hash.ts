import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/** Hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Hex SHA-256 of the canonical JSON of a value: equal for values that differ only in key order. */
export function hashCanonical(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
