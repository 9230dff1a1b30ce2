import { describe, expect, it } from "vitest";
import { findInvisibleCharacters, INVISIBLE_CHARACTERS_RULE } from "./invisible-characters.js";

describe("findInvisibleCharacters", () => {
  it.each([
    ["a right-to-left override in a path", { path: "report\u202etxt.exe" }, "\\u202e"],
    ["a zero-width space in a URL", { url: "https://exa\u200bmple.com" }, "\\u200b"],
    ["a bidi isolate deep in a list", { items: [{ a: ["x", "y\u2067z"] }] }, "\\u2067"],
    ["a control character in a message", { body: "ok\u0008\u0008no" }, "\\u0008"],
    ["an escape sequence for a terminal", { command: "echo \u001b[2Jsafe" }, "\\u001b"],
    ["a tag character", { text: "hi\u{e0041}" }, "\\udb40\\udc41"],
    ["a line separator", { code: "a\u2028b" }, "\\u2028"],
    ["a Hangul filler posing as a name", { to: "\u3164" }, "\\u3164"],
    ["an override in a key", { "na\u202eme": "v" }, "\\u202e"],
    ["a byte-order mark", { content: "\ufeffdata" }, "\\ufeff"],
  ])("flags %s", (_name, args, shown) => {
    const finding = findInvisibleCharacters(args);
    expect(finding?.rule).toBe(INVISIBLE_CHARACTERS_RULE);
    expect(finding?.reason).toContain(shown);
  });

  it.each([
    ["plain text in many scripts", { body: "Grüße, 東京, שלום, مرحبا\n\tdone" }],
    ["a CRLF file", { content: "a\r\nb\r\n" }],
    ["emoji sequences", { body: "family 👨\u200d👩\u200d👧 and ❤\ufe0f" }],
    ["a no-break space in prose", { body: "10\u00a0km" }],
    ["Persian with a zero-width non-joiner", { body: "می\u200cخواهم" }],
    ["numbers, booleans and null", { n: 1, b: true, z: null }],
  ])("does not flag %s", (_name, args) => {
    expect(findInvisibleCharacters(args)).toBeNull();
  });

  it("flags arguments too large to look through rather than passing them", () => {
    const wide = { items: Array.from({ length: 20_000 }, (_, i) => String(i)) };
    expect(findInvisibleCharacters(wide)?.reason).toContain("too many to check");
  });
});
