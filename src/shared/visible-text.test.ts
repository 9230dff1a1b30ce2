import { describe, expect, it } from "vitest";
import { countHiddenCharacters } from "./visible-text.fixture.js";
import { hasHiddenCharacters, hiddenCharactersWarning, makeVisible } from "./visible-text.js";

describe("makeVisible", () => {
  it.each([
    ["report\u202etxt.exe", "report\\u202etxt.exe"],
    ["a\u200bb", "a\\u200bb"],
    ["a\u2066b\u2069", "a\\u2066b\\u2069"],
    ["\ufeffx", "\\ufeffx"],
    ["x\u007f", "x\\u007f"],
    ["x\u0085", "x\\u0085"],
    ["a\u00a0b", "a\\u00a0b"],
    ["a\u2028b", "a\\u2028b"],
    ["tag\u{e0041}", "tag\\udb40\\udc41"],
    ["bell\u0007", "bell\\u0007"],
    ["cr\r", "cr\\u000d"],
    ["e\u0301", "e\u0301"], // a visible combining accent stays
  ])("writes %j as %j", (raw, shown) => {
    expect(makeVisible(raw)).toBe(shown);
  });

  it("keeps newlines, tabs, plain spaces and ordinary text of any script", () => {
    const text = 'line one\n\tline two: "Grüße", 東京, שלום, مرحبا';
    expect(makeVisible(text)).toBe(text);
    expect(hasHiddenCharacters(text)).toBe(false);
    expect(hiddenCharactersWarning(text)).toBeNull();
  });

  it("keeps JSON readable as the same value", () => {
    const json = JSON.stringify({ path: "a\u202eb\u{e0041}\u00a0" });
    expect(makeVisible(json)).not.toBe(json);
    expect(JSON.parse(makeVisible(json))).toEqual(JSON.parse(json));
  });

  it("counts and warns with the escapes to look for", () => {
    const text = "a\u202eb\u202ec\u200b";
    expect(hasHiddenCharacters(text)).toBe(true);
    expect(hasHiddenCharacters(text)).toBe(true); // no lastIndex carried over
    expect(countHiddenCharacters(text)).toBe(3);
    expect(hiddenCharactersWarning(text)).toContain("3 invisible");
    expect(hiddenCharactersWarning(text)).toContain("\\u202e, \\u200b");
  });

  it("leaves no hidden character behind, whatever the input", () => {
    let all = "";
    for (let cp = 0; cp < 0x3100; cp += 1) all += String.fromCodePoint(cp);
    for (let cp = 0xfe00; cp <= 0xffff; cp += 1) all += String.fromCodePoint(cp);
    for (let cp = 0xe0000; cp <= 0xe01ef; cp += 1) all += String.fromCodePoint(cp);
    expect(hasHiddenCharacters(makeVisible(all))).toBe(false);
  });
});
