/**
 * Removes secrets from what a tool returns before it reaches the model, the journal or the logs
 * (seed 002 sanitizeToolResult). Three nets, because a static list alone misses things:
 * 1. structured fields named like credentials or headers that carry them are replaced;
 * 2. opaque encrypted fields are replaced (they are unreadable and may leak to a later model);
 * 3. header lines in text ("Authorization: Bearer ...") and any credential value injected into
 *    this call are masked wherever they appear in text.
 */
export const SENSITIVE_FIELDS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "password",
  "passwd",
  "secret",
  "client_secret",
  "api_key",
  "apikey",
  "access_token",
  "refresh_token",
] as const;
export const OPAQUE_FIELDS = ["encrypted_content", "encrypted_stdout", "encrypted_stderr"] as const;
export const REDACTED = "[redacted]";
export const OPAQUE = "[opaque]";

const sensitive = new Set<string>(SENSITIVE_FIELDS);
const opaque = new Set<string>(OPAQUE_FIELDS);
const HEADER_LINE = new RegExp(
  `^(\\s*(?:${SENSITIVE_FIELDS.filter((f) => !f.includes("_")).join("|")})\\s*[:=]\\s*).+$`,
  "gim",
);

/** Masks credential header lines and the given secret values in free text. */
export function sanitizeText(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(HEADER_LINE, `$1${REDACTED}`);
  for (const secret of secrets) {
    // Short values would mask ordinary words; credentials are never this short.
    if (secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Deep copy of `value` with sensitive and opaque fields replaced and strings passed through {@link sanitizeText}. */
export function sanitizeValue(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
  if (depth > 32) return "[too deep]";
  if (typeof value === "string") return sanitizeText(value, secrets);
  if (Array.isArray(value)) return value.map((item) => sanitizeValue(item, secrets, depth + 1));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const lower = key.toLowerCase();
      if (sensitive.has(lower)) out[key] = REDACTED;
      else if (opaque.has(lower)) out[key] = OPAQUE;
      else out[key] = sanitizeValue(item, secrets, depth + 1);
    }
    return out;
  }
  return value;
}
