import unhomoglyph from "unhomoglyph";
import { normaliseIdentity } from "../shared/index.js";

/**
 * The confusable skeleton of an identity (UTS #39 §4): two ids with the same skeleton look alike to
 * a person (Cyrillic `а` and Latin `a`, Greek `ο` and `o`, `1` and `l`, `rn` and `m`), so config
 * refuses them as two people. The mapping is Unicode's confusables.txt as the `unhomoglyph` package
 * ships it (v13 data). Applied to the {@link normaliseIdentity} form (which already folds case and
 * width), then lower-cased and mapped once more, because confusables.txt maps to a prototype that
 * may be upper case (`0` → `O`) while ids are compared ignoring case.
 */
export function confusableSkeleton(raw: string): string {
  const mapped = unhomoglyph(normaliseIdentity(raw).normalize("NFD"));
  return unhomoglyph(mapped.toLowerCase()).normalize("NFD");
}

/** True when two identities are different people after normalisation but look the same. */
export function areConfusable(a: string, b: string): boolean {
  return normaliseIdentity(a) !== normaliseIdentity(b) && confusableSkeleton(a) === confusableSkeleton(b);
}
