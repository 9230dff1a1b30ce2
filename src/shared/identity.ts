/**
 * The one normalisation of a person's identity, applied wherever two identities are compared
 * (self-approval, quorum counting, allow-always scopes, sessions, the audit trail's approver): Unicode
 * NFKC (so full-width or ligature spellings are the same letters), invisible format characters
 * removed (a zero-width space inside a name is not a new person), every run of whitespace or
 * control characters one space, trimmed, and case folded (upper then lower, so `ß` and `SS` meet).
 * "Alice", "alice ", " ALICE" and "ａｌｉｃｅ" are all `alice`.
 */
export function normaliseIdentity(raw: string): string {
  return (
    raw
      .normalize("NFKC")
      .replace(/\p{Cf}/gu, "")
      .replace(/[\s\p{Z}\p{Cc}]+/gu, " ")
      .trim()
      .toUpperCase()
      .toLowerCase()
      // Twice: "ẞ" lower-cases to "ß", which only the second round folds to "ss".
      .toUpperCase()
      .toLowerCase()
      .normalize("NFKC")
  );
}

/** True when two identities name the same person after {@link normaliseIdentity}. */
export function sameIdentity(a: string, b: string): boolean {
  return normaliseIdentity(a) === normaliseIdentity(b);
}
