/** What replaces a redacted value. */
export const REDACTED = "[REDACTED]";

/**
 * Fragments of field names that mark a secret, matched against the name lower-cased with every
 * non-alphanumeric removed (so `x-api-key`, `api_key` and `apiKey` all read `apikey`). Covers the
 * seed's sensitive header fields (authorization, proxy-authorization, cookie, set-cookie, x-api-key,
 * x-auth-token) plus passwords, secrets, credentials, private keys and opaque encrypted fields.
 */
export const SECRET_NAME_FRAGMENTS = [
  "authorization",
  "cookie",
  "apikey",
  "authtoken",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "bearer",
  "token",
  "password",
  "passwd",
  "passphrase",
  "secret",
  "credential",
  "privatekey",
  "accesskey",
  "signingkey",
  "hmackey",
  "encrypted",
  "sessionid",
] as const;

/** True when a field called `name` holds a secret by its name. */
export function isSecretName(name: string): boolean {
  const known = secretNameCache.get(name);
  if (known !== undefined) return known;
  const normalised = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  const secret = SECRET_NAME_FRAGMENTS.some((fragment) => normalised.includes(fragment));
  // Field names repeat on every audit entry; the cache is bounded because `detail` keys are free.
  if (secretNameCache.size >= MAX_CACHED_NAMES) secretNameCache.clear();
  secretNameCache.set(name, secret);
  return secret;
}

const MAX_CACHED_NAMES = 1024;
const secretNameCache = new Map<string, boolean>();

// Credentials that show up inside free text (a reason quoting a header or a URL). Each comes with a
// cheap test of what it needs to match at all: most texts hold neither, and a test is much cheaper
// than a global replace.
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi;
const MAY_HOLD_SCHEME_CREDENTIAL = /bearer|basic/i;
const URL_PASSWORD = /(\/\/[^/\s:@]+):[^/\s@]+@/g;

/**
 * A copy of `value` with the value of every field whose name marks a secret replaced by
 * {@link REDACTED} (at any depth), and bearer / basic credentials and URL passwords inside strings
 * masked. Used on everything written to the audit trail; it is a safety net, not a licence to pass
 * secrets in — credentials are injected at execution time and never handed to the audit trail.
 */
export function redactSecrets<T>(value: T): T {
  return redact(value, new Set()) as T;
}

function redact(value: unknown, seen: Set<object>): unknown {
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return REDACTED;
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redact(item, seen));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretName(key) && item !== undefined && item !== null ? REDACTED : redact(item, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function redactText(text: string): string {
  let out = text;
  if (MAY_HOLD_SCHEME_CREDENTIAL.test(out)) out = out.replace(SCHEME_CREDENTIAL, `$1 ${REDACTED}`);
  if (out.includes("@")) out = out.replace(URL_PASSWORD, `$1:${REDACTED}@`);
  return out;
}
