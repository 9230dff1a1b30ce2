import { hiddenCharactersIn } from "./visible-text.js";

/** How many characters of `text` makeVisible rewrites (tests only). */
export function countHiddenCharacters(text: string): number {
  return hiddenCharactersIn(text).length;
}
