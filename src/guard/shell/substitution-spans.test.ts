import { describe, expect, it } from "vitest";
import { substitutionSpans } from "./substitution-spans.js";

describe("command substitutions in here-document text", () => {
  it.each([
    ["no substitution here", []],
    [" $(reboot)\n", ["reboot"]],
    ["a $(echo $(id)) b", ["echo $(id)"]],
    ["x `rm -rf /` y", ["rm -rf /"]],
    ["quoted $(echo ')' ; reboot)", ["echo ')' ; reboot"]],
    ["escaped \\$(reboot) and \\`reboot\\`", []],
    ["unbalanced $(reboot", ["reboot"]],
    ["$((1 + 2))", ["(1 + 2)"]],
  ] as Array<[string, string[]]>)("finds the substitutions in %j", (text, spans) => {
    expect(substitutionSpans(text)).toEqual(spans);
  });
});
