import { describe, expect, it } from "vitest";
import { NEUTRAL_SINKS, neutralise, stripEscapeSequences } from "./neutralise.js";

const ESC = "\u001b";
const BEL = "\u0007";

describe("neutralise: hostile text for terminals", () => {
  it.each([
    ["clear screen and home", `${ESC}[2J${ESC}[Hdone`, "done"],
    ["colours", `${ESC}[31;1mred${ESC}[0m`, "red"],
    ["OSC 52 clipboard write (BEL)", `a${ESC}]52;c;cm0gLXJmIH4=${BEL}b`, "ab"],
    ["OSC 52 clipboard write (ST)", `a${ESC}]52;c;cm0gLXJmIH4=${ESC}\\b`, "ab"],
    ["OSC 8 hyperlink", `${ESC}]8;;https://evil.example${ESC}\\click${ESC}]8;;${ESC}\\`, "click"],
    ["OSC title", `${ESC}]0;owned${BEL}ok`, "ok"],
    ["8-bit CSI", "\u009b2Jok", "ok"],
    ["8-bit OSC", "\u009d52;c;eA==\u009cok", "ok"],
    ["DCS string", `${ESC}Pq#0;2;0;0;0${ESC}\\ok`, "ok"],
    ["reset", `${ESC}cok`, "ok"],
    ["an unterminated OSC eats to the end", `ok${ESC}]52;c;eA==`, "ok"],
  ])("strips %s", (_name, input, expected) => {
    expect(stripEscapeSequences(input)).toBe(expected);
    expect(neutralise(input, "terminal")).toBe(expected);
  });

  it("writes out what is left: carriage return, backspace, bidi overrides and isolates, zero width", () => {
    expect(neutralise("safe\rrm -rf /", "terminal")).toBe("safe\\u000drm -rf /");
    expect(neutralise("ab\bc", "terminal")).toBe("ab\\u0008c");
    expect(neutralise("file\u202egnp.exe", "terminal")).toBe("file\\u202egnp.exe");
    expect(neutralise("\u2066x\u2069\u200b", "terminal")).toBe("\\u2066x\\u2069\\u200b");
    expect(neutralise("line 1\n\tline 2", "terminal")).toBe("line 1\n\tline 2");
  });

  it("leaves no ESC and no C1 control in the output of any input", () => {
    const nasty = `${ESC}[${ESC}]${ESC}${ESC}[?1049h\u009b\u0090${ESC}P${ESC}_x${ESC}^y${ESC}X${BEL}`;
    const out = neutralise(nasty, "terminal");
    expect([...out].filter((c) => c === ESC || c === BEL || (c >= "\u0080" && c <= "\u009f"))).toEqual([]);
  });
});

describe("neutralise: hostile text for people (mail, chat, JSON)", () => {
  it.each(NEUTRAL_SINKS.filter((s) => s !== "terminal"))(
    "%s: bidi and controls escaped, links defanged",
    (sink) => {
      const out = neutralise("see https://evil.example/a and www.evil.example \u202eexe.txt\u0007", sink);
      expect(out.includes("\u202e") || out.includes(BEL)).toBe(false);
      expect(out).toContain("https[:]//evil.example/a");
      expect(out).toContain("www[.]evil.example");
      expect(out).toContain("\\u202eexe.txt\\u0007");
    },
  );

  it("slack_mrkdwn: <!channel>, <@U1> and <url|label> cannot form", () => {
    const out = neutralise("<!channel> <@U123> <https://evil.example|Approve> & co", "slack_mrkdwn");
    expect(out).toBe("&lt;!channel&gt; &lt;@U123&gt; &lt;https[:]//evil.example|Approve&gt; &amp; co");
  });
});
